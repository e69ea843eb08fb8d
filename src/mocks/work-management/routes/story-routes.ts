/**
 * Stories (comments) on tasks: list and post under a task, read, edit and delete (reference §5.9–5.13).
 */
import { ApiError, missingInput } from '../api/api-error';
import { bodyData, type Route } from '../api/route-table';
import { node, nodeMaker } from '../api/representations';
import { assertVisible, createdResponse, emptyResponse, listResponse, lookup, oneResponse, requireString } from './route-helpers';
import { authorOf, visibleTask } from './task-routes';

export const storyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/tasks/:task_gid/stories',
    handler: (req, ctx) => {
      const task = visibleTask(req, ctx, req.params.task_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.storiesByTask.get(task.gid), ctx.store.stories), nodeMaker('story'));
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task_gid/stories',
    handler: (req, ctx) => {
      const task = visibleTask(req, ctx, req.params.task_gid);
      const data = bodyData(req);
      const text = typeof data.text === 'string' ? data.text : typeof data.html_text === 'string' ? data.html_text.replace(/<[^>]+>/g, '') : '';
      if (!text) throw missingInput('text');
      const story = ctx.store.addStory({ target: task.gid, type: 'comment', text, createdBy: authorOf(req), source: 'api', isPinned: data.is_pinned === true });
      return createdResponse(req, ctx, node('story', story), `/stories/${story.gid}`);
    },
  },
  {
    method: 'GET',
    path: '/stories/:story_gid',
    handler: (req, ctx) => {
      const story = lookup(ctx.store.stories, 'story', req.params.story_gid);
      assertVisible(req, ctx, 'story', story.gid);
      return oneResponse(req, ctx, node('story', story));
    },
  },
  {
    method: 'PUT',
    path: '/stories/:story_gid',
    handler: (req, ctx) => {
      const story = lookup(ctx.store.stories, 'story', req.params.story_gid);
      assertVisible(req, ctx, 'story', story.gid);
      if (story.type !== 'comment') throw new ApiError(403, 'Only comments can be edited.');
      const text = requireString(bodyData(req), 'text');
      ctx.store.editStory(story, text);
      return oneResponse(req, ctx, node('story', story));
    },
  },
  {
    method: 'DELETE',
    path: '/stories/:story_gid',
    handler: (req, ctx) => {
      const story = lookup(ctx.store.stories, 'story', req.params.story_gid);
      assertVisible(req, ctx, 'story', story.gid);
      ctx.store.deleteStory(story);
      return emptyResponse();
    },
  },
];
