import type { MockClient } from './mock-client';

export interface ChangeRound {
  movedTasks: Array<{ task: string; from: string; to: string }>;
  removedMember: { project: string; user: string };
  deletedTasks: string[];
  editedComment: { story: string; task: string; text: string };
}

interface Project {
  gid: string;
  name: string;
  privacy_setting: string;
}

/**
 * Changes the organization the way people do between two crawls — tasks move between projects,
 * a member leaves a project, tasks are deleted, a comment is edited — choosing deterministically
 * among what exists, through the mock's private admin endpoints (each change reaches the events
 * stream like a change made in the product).
 */
export async function applyChangeRound(mock: MockClient, workspace: string, print: (line: string) => void): Promise<ChangeRound> {
  const projects = (await mock.list<Project>(`/projects?workspace=${workspace}&archived=false&opt_fields=name,privacy_setting`)).sort((a, b) =>
    a.gid.localeCompare(b.gid),
  );
  const tasksOf = async (p: Project) => (await mock.list<{ gid: string }>(`/projects/${p.gid}/tasks?opt_fields=name`)).map((t) => t.gid);
  const withTasks: Array<{ project: Project; tasks: string[] }> = [];
  for (const project of projects) {
    const tasks = await tasksOf(project);
    if (tasks.length >= 4) withTasks.push({ project, tasks });
    if (withTasks.length >= 4) break;
  }
  const [source, target, third] = withTasks;
  if (!source || !target || !third) throw new Error('the organization is too small for the change round (needs three projects with at least four tasks)');

  // Move tasks to a project with another audience where possible.
  const destination = withTasks.find((w) => w.project.privacy_setting !== source.project.privacy_setting) ?? target;
  const movedTasks = source.tasks.slice(0, 3).map((task) => ({ task, from: source.project.gid, to: destination.project.gid }));
  for (const m of movedTasks) await mock.request('POST', `/_admin/tasks/${m.task}/move`, { from: m.from, to: m.to });

  // A user leaves a project that has several user members.
  let removedMember: ChangeRound['removedMember'] | undefined;
  for (const project of projects) {
    const members = await mock.list<{ member: { gid: string; resource_type: string } }>(
      `/memberships?parent=${project.gid}&opt_fields=member,member.resource_type`,
    );
    const users = members.filter((m) => m.member.resource_type === 'user').map((m) => m.member.gid);
    if (users.length >= 2) {
      const user = users[users.length - 1] as string;
      await mock.request('DELETE', `/_admin/projects/${project.gid}/members/${user}`);
      removedMember = { project: project.gid, user };
      break;
    }
  }
  if (!removedMember) throw new Error('no project has two user members to remove one from');

  const deletedTasks = third.tasks.slice(-2);
  await mock.request('POST', '/_admin/tasks/delete', { gids: deletedTasks });

  let editedComment: ChangeRound['editedComment'] | undefined;
  for (const { tasks } of withTasks) {
    for (const task of tasks.filter((t) => !deletedTasks.includes(t))) {
      const stories = await mock.list<{ gid: string; type: string }>(`/tasks/${task}/stories?opt_fields=type`);
      const comment = stories.find((s) => s.type === 'comment');
      if (comment) {
        const text = `Edited by the harness: "quotes" & <angle brackets> stay text (${comment.gid})`;
        await mock.request('PUT', `/_admin/stories/${comment.gid}`, { text });
        editedComment = { story: comment.gid, task, text };
        break;
      }
    }
    if (editedComment) break;
  }
  if (!editedComment) throw new Error('no task with a comment to edit');

  print(
    `change round: moved ${movedTasks.length} tasks ${source.project.gid} → ${destination.project.gid}, removed user ${removedMember.user} from project ${removedMember.project}, ` +
      `deleted tasks ${deletedTasks.join(', ')}, edited comment ${editedComment.story} on task ${editedComment.task}`,
  );
  return { movedTasks, removedMember, deletedTasks, editedComment };
}

export interface Member {
  user: string;
  email: string;
  isGuest: boolean;
  isActive: boolean;
}

/** Every member of the workspace with an email (the people who could ask the assistant), active or not. */
export async function workspaceMembers(mock: MockClient, workspace: string): Promise<Member[]> {
  const rows = await mock.list<{ user: { gid: string; email?: string | null }; is_guest: boolean; is_active: boolean }>(
    `/workspaces/${workspace}/workspace_memberships?opt_fields=user,user.email,is_guest,is_active`,
  );
  return rows
    .filter((r) => r.user.email)
    .map((r) => ({ user: r.user.gid, email: r.user.email as string, isGuest: r.is_guest, isActive: r.is_active }))
    .sort((a, b) => a.user.localeCompare(b.user));
}

/**
 * Deactivates the active guest who sees the most tasks (by the oracle's `visibility`, task gid →
 * users), as an administrator does when a contractor's engagement ends. Returns their gid.
 */
export async function deactivateGuest(
  mock: MockClient,
  workspace: string,
  visibility: ReadonlyMap<string, readonly string[]>,
  print: (line: string) => void,
): Promise<string> {
  const guests = (await workspaceMembers(mock, workspace)).filter((m) => m.isGuest && m.isActive).map((m) => m.user);
  const seen = (user: string) => [...visibility.values()].filter((users) => users.includes(user)).length;
  const ranked = guests.map((user) => ({ user, tasks: seen(user) })).sort((a, b) => b.tasks - a.tasks || a.user.localeCompare(b.user));
  const guest = ranked[0];
  if (!guest || guest.tasks === 0) throw new Error('no active guest sees a task: the organization is too small for the change round');
  await mock.request('POST', `/_admin/users/${guest.user}/deactivate`, { workspace });
  print(`change round: deactivated guest ${guest.user} (saw ${guest.tasks} tasks)`);
  return guest.user;
}

/**
 * Adds to a private project an active member of the workspace (not a guest) who cannot see at
 * least two of its tasks, as happens when someone joins a project: access that must appear. Of
 * the first such project (by gid), the member who cannot see the most of its tasks (then the
 * lowest gid). Judged task by task: on a large organization the union of a private project's task
 * audiences reaches everyone (a task multi-homed in a public project, followers, assignees).
 * Returns the project and the user.
 */
export async function addProjectMember(
  mock: MockClient,
  workspace: string,
  visibility: ReadonlyMap<string, readonly string[]>,
  print: (line: string) => void,
): Promise<{ project: string; user: string }> {
  const members = (await workspaceMembers(mock, workspace)).filter((m) => m.isActive && !m.isGuest);
  const projects = (await mock.list<Project>(`/projects?workspace=${workspace}&archived=false&opt_fields=name,privacy_setting`))
    .filter((p) => p.privacy_setting === 'private')
    .sort((a, b) => a.gid.localeCompare(b.gid));
  for (const project of projects) {
    const tasks = (await mock.list<{ gid: string }>(`/projects/${project.gid}/tasks?opt_fields=name`)).map((t) => t.gid).filter((t) => visibility.has(t));
    const unseen = members.map((m) => ({ user: m.user, tasks: tasks.filter((t) => !(visibility.get(t) ?? []).includes(m.user)).length }));
    const best = unseen.filter((u) => u.tasks >= 2).sort((a, b) => b.tasks - a.tasks || a.user.localeCompare(b.user))[0];
    if (!best) continue;
    await mock.request('POST', `/_admin/projects/${project.gid}/members`, { member: best.user });
    print(`change round: added user ${best.user} to private project ${project.gid} (${best.tasks} of its ${tasks.length} tasks new to them)`);
    return { project: project.gid, user: best.user };
  }
  throw new Error('no private project has two tasks an active workspace member cannot see');
}
