/**
 * The interleaving of issue 13, enumerated: a stale holder A (token 2) read a batch of invoices and froze
 * before charging it; the new holder B (token 4) acquires the lease and charges the invoices in two
 * batches. A wakes at each point relative to B's steps, and its pending charge then runs. A charge is a
 * write to the billing record, so a double charge is an invoice charged twice in the store.
 *
 * With fencing at write time, A's charge lands when it wakes after B has read but before B has written:
 * B's decision came from a read that A's write then made stale. With the claim, A is refused at every
 * point after B's claim, and at the one point before it B reads A's charges and skips them.
 */
import { describe, expect, it } from 'vitest';
import { MemoryCasStore, StaleTokenError } from '../../src/index.js';
import { type AccessMode, access, type FencedAccess } from './cas-access.js';

interface Billing {
  readonly charges: readonly { readonly invoice: string; readonly by: string }[];
}

const BATCHES = [
  ['inv1', 'inv2'],
  ['inv3', 'inv4'],
];
const WAKE_POINTS = [
  'after-acquire',
  'after-claim',
  'after-read',
  'after-first-write',
  'after-done',
] as const;
type WakePoint = (typeof WAKE_POINTS)[number];

function unpaid(billing: Billing, batch: readonly string[]): string[] {
  return batch.filter((invoice) => !billing.charges.some((c) => c.invoice === invoice));
}

function charge(invoices: readonly string[], by: string): (billing: Billing) => Billing {
  return (billing) => ({ charges: [...billing.charges, ...invoices.map((invoice) => ({ invoice, by }))] });
}

interface Outcome {
  readonly doubleCharges: number;
  /** Whether A's charge, made with token 2, landed. */
  readonly staleLanded: boolean;
  readonly uncharged: readonly string[];
}

async function run(mode: AccessMode, wakeAt: WakePoint): Promise<Outcome> {
  const store = new MemoryCasStore<Billing>();
  const empty: Billing = { charges: [] };
  const a = await access(mode, store, 'billing', 2n, empty);
  const pendingForA = unpaid(await a.read(), BATCHES[0]!);
  // A freezes here, past its lease; B acquires token 4.
  let staleLanded = false;
  const at = async (point: WakePoint): Promise<void> => {
    if (point !== wakeAt) return;
    try {
      await a.update(charge(pendingForA, 'A'));
      staleLanded = true;
    } catch (error) {
      if (!(error instanceof StaleTokenError)) throw error;
    }
  };

  await at('after-acquire');
  const b: FencedAccess<Billing> = await access(mode, store, 'billing', 4n, empty);
  await at('after-claim');
  for (const [i, batch] of BATCHES.entries()) {
    const due = unpaid(await b.read(), batch);
    if (i === 0) await at('after-read');
    await b.update(charge(due, 'B'));
    if (i === 0) await at('after-first-write');
  }
  await at('after-done');

  const { charges } = (await store.read('billing'))!.value;
  const invoices = BATCHES.flat();
  return {
    doubleCharges: charges.length - new Set(charges.map((c) => c.invoice)).size,
    staleLanded,
    uncharged: invoices.filter((invoice) => !charges.some((c) => c.invoice === invoice)),
  };
}

async function table(mode: AccessMode): Promise<Record<WakePoint, Outcome>> {
  const rows: Partial<Record<WakePoint, Outcome>> = {};
  for (const point of WAKE_POINTS) rows[point] = await run(mode, point);
  return rows as Record<WakePoint, Outcome>;
}

describe('the stale holder woken at each of the new holder’s steps', () => {
  it('with the claim: 0 double charges at every point; A’s charge lands only before B’s claim, then B skips it', async () => {
    const rows = await table('claim');
    for (const point of WAKE_POINTS) {
      expect(rows[point], point).toEqual({
        doubleCharges: 0,
        staleLanded: point === 'after-acquire',
        uncharged: [],
      });
    }
  });

  it('with fencing at write time: A’s charge lands after B’s read and both charge inv1 and inv2', async () => {
    // The control: if this stops failing, the scenario no longer reaches the window the claim closes.
    const rows = await table('write-time');
    expect(rows['after-read']).toEqual({ doubleCharges: 2, staleLanded: true, uncharged: [] });
    // Without a claim step the point after it is the point after the acquire.
    expect(rows['after-claim']).toEqual(rows['after-acquire']);
    expect(rows['after-acquire']).toEqual({ doubleCharges: 0, staleLanded: true, uncharged: [] });
    for (const point of ['after-first-write', 'after-done'] as const) {
      expect(rows[point], point).toEqual({ doubleCharges: 0, staleLanded: false, uncharged: [] });
    }
  });
});
