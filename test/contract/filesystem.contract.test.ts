import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFilesystemAdapter } from '../../src/adapters/filesystem';
import { describeAdapterContract } from './describe-adapter-contract';

/**
 * A small tree in the demo corpus's convention (src/demo/corpus/_README.md): a directory file
 * with nested groups and an inactive user, sidecars that replace their parent's rule and
 * override one file, a public folder, and one file of each kind the adapter serves.
 */
const TREE: Readonly<Record<string, string>> = {
  '_directory.yaml': [
    'users:',
    '  - { id: ana, email: ana@example.com, full_name: Ana, active: true }',
    '  - { id: bo, email: bo@example.com, full_name: Bo, active: true }',
    '  - { id: gus, email: gus@example.com, full_name: Gus, active: false }',
    'groups:',
    '  - { id: staff, name: Staff, members: [{ group: eng }, { user: gus }] }',
    '  - { id: eng, name: Engineering, members: [{ user: ana }, { user: bo }] }',
    '',
  ].join('\n'),
  'public/_access.yaml': 'public: true\n',
  'public/welcome.html': '<!DOCTYPE html><html><head><title>Welcome</title></head><body><h1>Welcome</h1><p>Hello.</p></body></html>\n',
  'public/faq.md': '# FAQ\n\nAsk anything.\n',
  'company/_access.yaml': 'groups: [staff]\nfiles:\n  salaries.txt: { users: [ana] }\n',
  'company/handbook.html': '<html><head><title>Handbook</title></head><body><p>Be kind.</p></body></html>\n',
  'company/holidays.txt': 'New Year: 1 January\n',
  'company/salaries.txt': 'Confidential.\n',
  'company/engineering/_access.yaml': 'groups: [eng]\n',
  'company/engineering/runbook.md': '# Runbook\n\n1. Stay calm.\n',
  'company/engineering/postmortem.pdf': '%PDF-1.4\n% a tiny stand-in PDF (the adapter serves bytes, it does not parse them)\n%%EOF\n',
};

/** Every file's mtime is set well in the past, so nothing is too fresh to trust ("racy"). */
const PAST = new Date('2026-01-01T00:00:00Z');

describeAdapterContract('filesystem', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-fs-contract-'));
  for (const [relative, text] of Object.entries(TREE)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    fs.utimesSync(file, PAST, PAST);
  }
  let edits = 0;
  return {
    adapter: createFilesystemAdapter({ root, baseUrl: 'https://intranet.example.com/docs' }),
    mutate: {
      deleteSomeFiles: async (n) => {
        const gone = ['company/holidays.txt', 'public/faq.md', 'company/handbook.html'].slice(0, n);
        for (const relative of gone) fs.rmSync(path.join(root, relative));
        return gone;
      },
      changeOneFile: async () => {
        const relative = 'company/engineering/runbook.md';
        const file = path.join(root, relative);
        fs.appendFileSync(file, `\n${++edits}. Write it down.\n`);
        // A later mtime, as a real edit has; the size changes too.
        const later = new Date(PAST.getTime() + edits * 60_000);
        fs.utimesSync(file, later, later);
        return relative;
      },
    },
    cleanup: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
});
