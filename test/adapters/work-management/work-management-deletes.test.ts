import { fileDeletes, type RunFindings } from '../../../src/adapters/work-management/work-management-deletes';
import { descendantsIn, subtasksAfter } from '../../../src/adapters/work-management/work-management-run-checkpoint';

/** The files an incremental run deletes, decided from the last checkpoint's attachments and what the run found. */

const before = { t1: ['a1', 'a2'], t2: ['a3'], t3: ['a4', 'a5'], p1: ['a6'] };
const found = (over: Partial<RunFindings>): RunFindings => ({ goneTasks: [], goneAttachments: [], read: new Map(), ...over });

describe('fileDeletes', () => {
  it('deletes nothing and keeps every attachment when nothing is gone or read again', () => {
    const { deletes, attachments } = fileDeletes(before, found({}));
    expect(deletes).toEqual([]);
    expect(Object.fromEntries(attachments)).toEqual(before);
  });

  it('deletes a task gone with its attachments, and forgets them', () => {
    const { deletes, attachments } = fileDeletes(before, found({ goneTasks: ['t1', 't9'] }));
    expect(deletes).toEqual(['attachment:a1', 'attachment:a2', 'task:t1', 'task:t9']);
    expect([...attachments.keys()]).toEqual(['t2', 't3', 'p1']);
  });

  it('deletes the attachments a task or project read again no longer has, and takes its new list', () => {
    const read = new Map([
      ['t1', ['a2', 'a7']],
      ['t2', []],
      ['p1', ['a6']],
      ['t8', ['a8']],
    ]);
    const { deletes, attachments } = fileDeletes(before, found({ read }));
    expect(deletes).toEqual(['attachment:a1', 'attachment:a3']);
    expect(Object.fromEntries(attachments)).toEqual({ t1: ['a2', 'a7'], t3: ['a4', 'a5'], p1: ['a6'], t8: ['a8'] });
  });

  it('deletes an attachment an event says is deleted when its task was not read again, dropping the task when none is left', () => {
    const { deletes, attachments } = fileDeletes(before, found({ goneAttachments: ['a4', 'a3'] }));
    expect(deletes).toEqual(['attachment:a3', 'attachment:a4']);
    expect(Object.fromEntries(attachments)).toEqual({ t1: ['a1', 'a2'], t3: ['a5'], p1: ['a6'] });
  });

  it('keeps an attachment an event says is deleted when its task read again still has it, and keeps knowing it', () => {
    const { deletes, attachments } = fileDeletes(
      before,
      found({
        goneAttachments: ['a1', 'a4'],
        read: new Map([
          ['t1', ['a1', 'a2']],
          ['t3', ['a4']],
        ]),
      }),
    );
    expect(deletes).toEqual(['attachment:a5']);
    expect(Object.fromEntries(attachments)).toEqual({ t1: ['a1', 'a2'], t2: ['a3'], t3: ['a4'], p1: ['a6'] });
    // Known, so a later run that finds the task gone deletes the attachment along with it.
    expect(fileDeletes(Object.fromEntries(attachments), found({ goneTasks: ['t1'] })).deletes).toEqual(['attachment:a1', 'attachment:a2', 'task:t1']);
  });

  it('ignores a deleted attachment that was never synced (a link, an unsupported type)', () => {
    const { deletes, attachments } = fileDeletes(before, found({ goneAttachments: ['link1'] }));
    expect(deletes).toEqual([]);
    expect(Object.fromEntries(attachments)).toEqual(before);
  });

  it('leaves the checkpoint it started from as it was', () => {
    const copy = structuredClone(before);
    fileDeletes(before, found({ goneTasks: ['t1'], goneAttachments: ['a4'], read: new Map([['t2', []]]) }));
    expect(before).toEqual(copy);
  });
});

describe('subtasksAfter', () => {
  const before = { '3': ['30', '31'], '30': ['300'], '4': ['40'] };

  it('takes what the run read over what was known, drops a task read without subtasks, and keeps the rest', () => {
    const read = new Map([
      ['3', ['32', '30']],
      ['4', []],
      ['5', ['50']],
    ]);
    expect(subtasksAfter(before, read, [])).toEqual({ '3': ['30', '32'], '30': ['300'], '5': ['50'] });
  });

  it('forgets the tasks gone, as parents and as subtasks', () => {
    expect(subtasksAfter(before, new Map(), ['30', '40'])).toEqual({ '3': ['31'] });
  });
});

describe('descendantsIn', () => {
  it('walks every level, once each, even through a cycle', () => {
    const map = new Map([
      ['1', ['2', '3']],
      ['3', ['4']],
      ['4', ['1', '5']],
    ]);
    expect(descendantsIn(map, '1').sort()).toEqual(['2', '3', '4', '5']);
    expect(descendantsIn(map, '9')).toEqual([]);
  });
});
