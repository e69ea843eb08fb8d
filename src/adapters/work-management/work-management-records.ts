/**
 * The work-management API's records as the adapter requests them (field names as the API spells
 * them; only the `opt_fields` the adapter asks for). See the README of this folder for the calls.
 */
export interface Ref {
  gid: string;
  name?: string;
  resource_type?: string;
  /** Asked for on references the task page links to (projects, the parent task). */
  permalink_url?: string;
}

export interface WmWorkspace {
  gid: string;
  name: string;
  is_organization?: boolean;
}

export interface WmUser {
  gid: string;
  name: string;
  email: string | null;
}

export interface WmWorkspaceMembership {
  gid: string;
  user: Ref;
  is_active: boolean;
  is_guest: boolean;
  is_admin?: boolean;
  /** The member's "My Tasks" list: where tasks in no project live. */
  user_task_list?: Ref | null;
}

export interface WmTeam {
  gid: string;
  name: string;
  visibility?: 'secret' | 'request_to_join' | 'public';
  permalink_url?: string;
}

export interface WmTeamMembership {
  gid: string;
  user: Ref;
  team: Ref;
  is_guest?: boolean;
  is_limited_access?: boolean;
}

export interface WmProject {
  gid: string;
  name: string;
  privacy_setting: 'public_to_workspace' | 'private_to_team' | 'private';
  team: Ref | null;
  archived?: boolean;
  permalink_url?: string;
  created_at?: string;
}

export interface WmMembership {
  gid: string;
  member: Ref & { resource_type: 'user' | 'team' | string };
  parent?: Ref;
  access_level?: string;
}

export interface WmCustomFieldValue {
  gid: string;
  name: string;
  display_value: string | null;
  enabled?: boolean;
}

export interface WmTask {
  gid: string;
  name: string;
  notes?: string;
  assignee: Ref | null;
  followers: Ref[];
  projects: Ref[];
  parent: Ref | null;
  permalink_url: string;
  created_at?: string;
  modified_at?: string;
  completed?: boolean;
  due_on?: string | null;
  custom_fields?: WmCustomFieldValue[];
  created_by?: Ref | null;
}

export interface WmStory {
  gid: string;
  type: 'comment' | 'system' | string;
  text: string;
  created_at: string;
  created_by: Ref | null;
}

export interface WmAttachment {
  gid: string;
  name: string;
  size?: number | null;
  host?: string;
  /** Left out of listings (it expires in about 2 minutes): read fresh right before a download. */
  download_url?: string | null;
  permanent_url?: string | null;
  view_url?: string | null;
  created_at?: string;
  parent?: Ref;
}

/** `GET /projects/{gid}/project_portfolio_settings`: whether a portfolio's members reach the project. */
export interface WmPortfolioSetting {
  gid: string;
  portfolio: Ref;
  is_access_control_inherited: boolean;
}

/** A task as access reconciliation reads it: what its access list depends on (and, when settled, its clock). */
export interface WmTaskAccess extends Pick<WmTask, 'gid' | 'projects' | 'assignee' | 'followers'> {
  modified_at?: string;
}

/** A task as the adapter requests it (`TASK_FIELDS`): the mapping fields plus what steers the crawl. */
export interface WmTaskRecord extends WmTask {
  resource_subtype?: string;
  /** Opt-in: subtasks are listed only when there are some. */
  num_subtasks?: number;
  workspace?: Ref;
}

/** What decides whether a task's events reach a project stream: whether it is in a project, and its parent. */
export interface TaskHome {
  inProject: boolean;
  parent: string | null;
}

/** One entry of an events response (`GET /events`, `GET /workspaces/{gid}/events`). */
export interface WmEvent {
  action: 'changed' | 'added' | 'removed' | 'deleted' | 'undeleted' | string;
  resource: Ref & { resource_type: string; resource_subtype?: string };
  parent: (Ref & { resource_type: string }) | null;
  created_at?: string;
  change?: { field: string; action: string; new_value?: unknown; added_value?: unknown; removed_value?: unknown };
}

/** The `data` envelope of a list page. */
export interface WmPage<T> {
  data: T[];
  next_page?: { offset: string; path?: string; uri?: string } | null;
}
