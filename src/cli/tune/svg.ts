/**
 * The little SVG and HTML the tuning report is written with: escaping, and numbers short enough that a
 * chart of a few thousand points stays a few tens of kilobytes.
 */

/** Escapes text for an XML or HTML text node or a quoted attribute. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A coordinate rounded to a tenth of a pixel. */
export function px(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

/** An element with attributes (escaped) and raw inner markup; self-closing when there is none. */
export function el(name: string, attributes: Readonly<Record<string, string | number>>, inner = ''): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${escapeXml(typeof value === 'number' ? px(value) : value)}"`)
    .join('');
  return inner === '' ? `<${name}${attrs}/>` : `<${name}${attrs}>${inner}</${name}>`;
}

/** A text element; `text` is escaped. */
export function text(
  x: number,
  y: number,
  content: string,
  attributes: Readonly<Record<string, string | number>> = {},
): string {
  return el('text', { x, y, ...attributes }, escapeXml(content));
}
