import path from 'node:path';
import { renderTaskHtml } from '../../src/adapters/work-management/work-management-mapping';
import type { WmTask } from '../../src/adapters/work-management/work-management-records';
import { commentServed } from '@content-gateway/kit/src/scenarios/run-harness';
import { escapeHtml } from '../../src/lib/escape-html';

const TEMPLATE = path.join(__dirname, '../../templates/html/task.mustache');

describe("the harness's edited-comment check", () => {
  const pageWith = (text: string) =>
    renderTaskHtml(
      {
        task: {
          gid: '7',
          name: 'Task',
          notes: '',
          assignee: null,
          followers: [],
          projects: [],
          parent: null,
          permalink_url: 'https://wm.example/task/7',
          created_at: '2025-01-02T03:04:05.000Z',
          completed: false,
        } as WmTask,
        projects: [],
        subtasks: [],
        comments: [{ gid: 's1', type: 'comment', text, created_at: '2025-01-04T10:00:00.000Z', created_by: { gid: 'ana', name: 'Ana' } }],
        attachments: [],
        userNames: new Map(),
      },
      TEMPLATE,
    );

  it('finds a comment with every character the task template escapes, the apostrophe included', () => {
    const text = `Edited: "quotes" & <angle brackets> and it's 'single' (s1)`;
    expect(commentServed(pageWith(text), text)).toBe(true);
    expect(commentServed(pageWith('something else'), text)).toBe(false);
  });

  it('escapes the five characters HTML text and quoted attributes need', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>/`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;/');
    expect(escapeHtml(42)).toBe('42');
  });
});
