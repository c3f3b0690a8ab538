/**
 * The markdown tables of the benches' `.md` results (the sweeps, bench:peers, the summary of
 * `npm run bench`): one layout, so that they read alike.
 */

/** A markdown table: the header, its rule, then one line per row; cells are written as given. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
