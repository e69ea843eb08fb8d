import type { FileInput, GroupInput, UserInput } from './staging-writer';

export const T0 = '2026-01-01T00:00:00.000Z';

/** A timestamp `n` seconds after T0, in the stored form. */
export function at(n: number): string {
  return new Date(Date.parse(T0) + n * 1000).toISOString();
}

export function htmlFile(id: string, overrides: Partial<FileInput> = {}): FileInput {
  return {
    id,
    source: 'test',
    native_id: id,
    name: `Article ${id}`,
    external_url: `https://intranet.example/${encodeURIComponent(id)}`,
    mime_type: 'text/html',
    status: 'active',
    size: null,
    sha256: null,
    sha1: null,
    blob_key: null,
    body_html: `<h1>Article ${id}</h1><p>Body of ${id}.</p>`,
    created_at: T0,
    created_by: 'author@example.com',
    modified_at: T0,
    modified_by: 'editor@example.com',
    parent_id: null,
    parent_name: null,
    parent_path: null,
    custom_attributes: null,
    ...overrides,
  };
}

export function user(id: string, overrides: Partial<UserInput> = {}): UserInput {
  return {
    id,
    source: 'test',
    native_id: id,
    email: `${id.replace(/[^a-z0-9]/gi, '')}@example.com`,
    full_name: `User ${id}`,
    state: 'Active',
    modified_at: T0,
    metadata: null,
    ...overrides,
  };
}

export function group(id: string, overrides: Partial<GroupInput> = {}): GroupInput {
  return { id, source: 'test', native_id: id, name: `Group ${id}`, created_at: T0, modified_at: T0, metadata: null, ...overrides };
}
