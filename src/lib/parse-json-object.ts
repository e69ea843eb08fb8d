/** A JSON column holding an object (custom attributes, metadata); anything else reads as absent. */
export function parseJsonObject(text: string | null): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
