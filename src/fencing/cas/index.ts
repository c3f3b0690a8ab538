/** Fencing over compare-and-set stores: the store contract, the claim, and two stores. */
export type { CasStore, CasVersion, FencedRecord, Versioned } from './cas-store.js';
export { type CasClaim, type ClaimCasOptions, claimCas } from './claim.js';
export { EtcdCasStore } from './etcd-store.js';
export { MemoryCasStore } from './memory-store.js';
