/**
 * How the leader hint ranks members by default: a priority read from their metadata. Metadata is opaque
 * bytes to SWIM, so the format is a convention, chosen to be what `fdkit agent --meta TEXT` and a JSON
 * encoder produce without extra work. Pure.
 */

/** The rank of a member whose metadata names no priority. */
export const DEFAULT_PRIORITY = 0;

// `priority=N` as one of several `key=value` pairs, separated by whitespace, `,`, `;` or `&`.
const PAIR = /(?:^|[\s,;&])priority=([+-]?\d+(?:\.\d+)?)(?=$|[\s,;&])/;
const decoder = new TextDecoder('utf-8');

/**
 * The priority in a member's metadata, the leader hint's default rank (higher ranks lead):
 * - UTF-8 text holding `priority=N` among other `key=value` pairs separated by whitespace, commas,
 *   semicolons or ampersands (`zone=b priority=10`, `priority=-1;dc=eu`);
 * - or a JSON object with a numeric `priority` field (`{"priority":10,"zone":"b"}`);
 * - anything else (empty metadata, binary, no priority) ranks {@link DEFAULT_PRIORITY}, 0.
 *
 * `N` is a decimal number, optionally signed: `10`, `-2`, `1.5`.
 *
 * @example
 * ```ts
 * priorityFromMeta(new TextEncoder().encode('zone=b priority=10')); // 10
 * priorityFromMeta(new TextEncoder().encode('{"priority":3}'));    // 3
 * priorityFromMeta(new Uint8Array());                               // 0
 * ```
 */
export function priorityFromMeta(meta: Uint8Array): number {
  if (meta.length === 0) return DEFAULT_PRIORITY;
  const text = decoder.decode(meta).trim();
  if (text.startsWith('{')) return fromJson(text);
  const match = PAIR.exec(text);
  return match === null ? DEFAULT_PRIORITY : Number(match[1]);
}

function fromJson(text: string): number {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && 'priority' in value) {
      const priority = value.priority;
      if (typeof priority === 'number' && Number.isFinite(priority)) return priority;
    }
  } catch {
    // Metadata that only looks like JSON is not a mistake of ours to report: it ranks as if it had none.
  }
  return DEFAULT_PRIORITY;
}
