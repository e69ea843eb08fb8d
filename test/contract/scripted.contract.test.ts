import { Readable } from 'node:stream';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { describeAdapterContract } from './describe-adapter-contract';

/** The engine's own test source passes the contract too: it is what the other suites trust. */
describeAdapterContract('scripted source', async () => {
  const source = new ScriptedSource('scripted');
  source
    .putUser({ nativeId: 'ana', email: 'ana@example.com', fullName: 'Ana', active: true })
    .putUser({ nativeId: 'bo', email: 'bo@example.com', active: true })
    .putUser({ nativeId: 'gus', email: 'gus@example.com', active: false })
    .putGroup({
      nativeId: 'staff',
      name: 'Staff',
      members: [
        { type: 'GROUP', nativeId: 'eng' },
        { type: 'USER', nativeId: 'gus' },
      ],
    })
    .putGroup({
      nativeId: 'eng',
      name: 'Engineering',
      members: [
        { type: 'USER', nativeId: 'ana' },
        { type: 'USER', nativeId: 'bo' },
      ],
    })
    .html('welcome', '<h1>Welcome</h1>', [{ type: 'EVERYONE' }])
    .html('handbook', '<h1>Handbook</h1>', [{ type: 'GROUP', nativeId: 'staff' }])
    .html('runbook', '<h1>Runbook</h1>', [
      { type: 'GROUP', nativeId: 'eng' },
      { type: 'USER', nativeId: 'gus' },
    ])
    .binary('deck', Buffer.from('%PDF-1.7 deck'), 'v1', [{ type: 'USER', nativeId: 'ana' }])
    .putFile({
      nativeId: 'notes',
      name: 'Notes',
      externalUrl: 'https://src.example/notes',
      mimeType: 'text/plain',
      content: { kind: 'binary', open: async () => Readable.from([Buffer.from('plain notes')]), version: 'n1' },
      access: [{ type: 'GROUP', nativeId: 'eng' }],
    });
  return {
    adapter: source,
    mutate: {
      deleteSomeFiles: async (n) => {
        const ids = [...source.files.keys()].slice(0, n);
        for (const id of ids) source.remove('file', id);
        return ids;
      },
      changeOneFile: async () => {
        const file = source.files.get('handbook');
        if (!file || !('html' in file.content)) throw new Error('the handbook is gone');
        source.putFile({ ...file, content: { kind: 'html', html: `${file.content.html}<p>Edited.</p>` } });
        return 'handbook';
      },
    },
    cleanup: async () => undefined,
  };
});
