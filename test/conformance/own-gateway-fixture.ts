import crypto from 'node:crypto';
import type { Principal } from '../helpers/staging-writer';
import { group, htmlFile, user } from '../helpers/staging-fixtures';
import type { TestGateway } from '../helpers/test-gateway';

export const PDF = 'application/pdf';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
export const TXT = 'text/plain';

const everyone: Principal[] = [{ type: 'GROUP', id: '*' }];
const g = (id: string): Principal => ({ type: 'GROUP', id });
const u = (id: string): Principal => ({ type: 'USER', id });

/** Emails of the fixture's people (the staging fixtures derive them from the id). */
export const EMAIL = {
  ana: 'testana@example.com',
  bo: 'testbo@example.com',
  chen: 'testchen@example.com',
  dee: 'testdee@example.com',
  eli: 'testeli@example.com',
  fay: 'testfay@example.com',
  gus: 'testgus@example.com',
  hal: 'testhal@example.com',
  u01: 'testu01@example.com',
};

/**
 * A corpus that exercises every rule the harness knows, staged into the real gateway:
 * HTML articles and binaries of every supported type; nested groups all-staff ⊃ engineering ⊃
 * platform; the wildcard; single-user files; an inactive user (bo); a tombstone; a group and an
 * access list longer than a page; with PAGE_SIZE_DEFAULT=10, several pages of everything.
 */
/** Ids a client must percent-encode (a `/`, spaces, `&`, `+`, `%`, Unicode): the raw-id crawl reaches them too. */
export const ODD_FILE_ID = 'test:hr & execs/2025 plan (Ünïcode) + 50%.html';
export const PLATFORM_GROUP = 'test:teams/platform eng';

export async function stageConformanceFixture(gw: TestGateway): Promise<void> {
  const crowd = Array.from({ length: 12 }, (_, i) => `test:u${String(i + 1).padStart(2, '0')}`);
  await gw.writer.putUsers([
    user('test:ana'),
    user('test:bo', { state: 'Inactive' }),
    user('test:chen'),
    user('test:dee'),
    user('test:eli'),
    user('test:fay'),
    user('test:gus'),
    user('test:hal'),
    ...crowd.map((id) => user(id)),
  ]);
  await gw.writer.putGroups([
    { group: group('test:all-staff'), members: [g('test:engineering'), g('test:hr'), u('test:fay'), u('test:gus')] },
    { group: group('test:engineering'), members: [g(PLATFORM_GROUP), u('test:chen'), u('test:dee'), u('test:bo')] },
    { group: group(PLATFORM_GROUP), members: [u('test:ana'), u('test:eli')] },
    { group: group('test:hr'), members: [u('test:hal')] },
    { group: group('test:executives'), members: [u('test:gus')] },
    { group: group('test:crowd'), members: crowd.map(u) },
  ]);

  const binary = async (id: string, mime: string, bytes: number, permissions: Principal[]) => {
    const blob = await gw.blobs.put(crypto.randomBytes(bytes));
    return { file: htmlFile(id, { mime_type: mime, body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size }), permissions };
  };
  const html = (id: string, permissions: Principal[]) => ({ file: htmlFile(id), permissions });
  await gw.writer.putFiles([
    ...Array.from({ length: 12 }, (_, i) => html(`test:kb-${String(i + 1).padStart(2, '0')}`, everyone)),
    ...Array.from({ length: 6 }, (_, i) => html(`test:eng-${i + 1}`, [g('test:engineering')])),
    ...Array.from({ length: 3 }, (_, i) => html(`test:platform-${i + 1}`, [g(PLATFORM_GROUP)])),
    html('test:note-for-ana', [u('test:ana')]),
    html('test:note-for-hal', [u('test:hal')]),
    html(ODD_FILE_ID, [g('test:hr'), g('test:executives')]),
    await binary('test:handbook.pdf', PDF, 40_000, [g('test:all-staff')]),
    await binary('test:salaries.docx', DOCX, 12_345, [g('test:hr')]),
    await binary('test:board.pptx', PPTX, 70_001, [g('test:executives')]),
    await binary('test:holidays.txt', TXT, 321, everyone),
    await binary('test:chen-review.pdf', PDF, 5000, [u('test:chen')]),
    await binary('test:crowd-list.pdf', PDF, 2048, crowd.map(u)),
    { file: htmlFile('test:old-article', { status: 'deleted' }), permissions: everyone },
  ]);
}
