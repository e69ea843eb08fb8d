/**
 * Stories (comments) on tasks: list and post under a task, read, edit and delete (reference §5.9–5.13).
 */
import { ApiError, missingInput } from '../api/api-error';
import { bodyData, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Story } from '../model';
import { requireString } from './route-helpers';
import { act, byGid, changed, created, getOne, listOf, under, visible } from './route-factories';
import { authorOf, taskParam } from './task-finders';

const storyParam = visible(
  'story',
  byGid('story', (s) => s.indexes.stories),
);

function postComment(req: ApiRequest, ctx: MockContext): Story {
  const task = taskParam(req, ctx);
  const data = bodyData(req);
  const text = typeof data.text === 'string' ? data.text : typeof data.html_text === 'string' ? data.html_text.replace(/<[^>]+>/g, '') : '';
  if (!text) throw missingInput('text');
  return ctx.store.tasks.addStory({ target: task.gid, type: 'comment', text, createdBy: authorOf(req), source: 'api', isPinned: data.is_pinned === true });
}

function editComment(story: Story, req: ApiRequest, ctx: MockContext): void {
  if (story.type !== 'comment') throw new ApiError(403, 'Only comments can be edited.');
  ctx.store.tasks.editStory(story, requireString(bodyData(req), 'text'));
}

export const storyRoutes: Route[] = [
  listOf(
    '/tasks/:task_gid/stories',
    'story',
    under(taskParam, (s, task) => s.indexes.list(s.indexes.storiesByTask.get(task.gid), s.indexes.stories)),
  ),
  created('/tasks/:task_gid/stories', 'story', 'stories', postComment),
  getOne('/stories/:story_gid', 'story', storyParam),
  changed('PUT', '/stories/:story_gid', 'story', storyParam, editComment),
  act('DELETE', '/stories/:story_gid', (req, ctx) => ctx.store.tasks.deleteStory(storyParam(req, ctx))),
];
