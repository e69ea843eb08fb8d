/**
 * Text from a gateway (ids, names, messages quoting them) made safe to print on a terminal:
 * control characters — escape sequences that could move the cursor, recolour or retitle the
 * terminal — are shown as `\u001b`-style escapes. The report's own line breaks are added after.
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
