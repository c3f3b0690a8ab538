/**
 * How the report draws each detector family: a name for people, a colour from the Okabe-Ito palette
 * (told apart with the common forms of colour blindness) and a marker shape, so that the series stay
 * distinct in grey too.
 */
import type { DetectorFamily } from '../../tune/detector-config.js';
import { el, px } from './svg.js';

/** The look of one family. */
export interface FamilyStyle {
  readonly label: string;
  readonly colour: string;
  readonly shape: 'square' | 'triangle' | 'circle' | 'diamond';
}

/** The look of each family, used alike by the charts and the tables. */
export const FAMILY_STYLES: Readonly<Record<DetectorFamily, FamilyStyle>> = {
  'fixed-timeout': { label: 'fixed timeout', colour: '#E69F00', shape: 'square' },
  chen: { label: 'Chen', colour: '#0072B2', shape: 'triangle' },
  'phi-normal': { label: 'phi, normal', colour: '#D55E00', shape: 'circle' },
  'phi-exponential': { label: 'phi, exponential', colour: '#009E73', shape: 'diamond' },
};

/** A marker of `shape` centred on (x, y), about `r` pixels in radius. */
export function marker(
  shape: FamilyStyle['shape'],
  x: number,
  y: number,
  r: number,
  attributes: Readonly<Record<string, string | number>>,
): string {
  switch (shape) {
    case 'circle':
      return el('circle', { cx: x, cy: y, r, ...attributes });
    case 'square':
      return el('rect', { x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, ...attributes });
    case 'triangle':
      return el('path', {
        d: `M${px(x)},${px(y - r * 1.15)}L${px(x + r)},${px(y + r * 0.75)}L${px(x - r)},${px(y + r * 0.75)}Z`,
        ...attributes,
      });
    case 'diamond':
      return el('path', {
        d: `M${px(x)},${px(y - r * 1.2)}L${px(x + r)},${px(y)}L${px(x)},${px(y + r * 1.2)}L${px(x - r)},${px(y)}Z`,
        ...attributes,
      });
  }
}
