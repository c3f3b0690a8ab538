/**
 * claimCas over the in-memory reference store: the conformance suite, then what the claim does with
 * misuse, broken stores, leases and signals. Each test says which plausible bug would make it fail.
 */
import { MemoryCasStore } from '../src/index.js';
import { describeCasConformance } from './support/cas-conformance.js';

describeCasConformance('MemoryCasStore', () => new MemoryCasStore());
