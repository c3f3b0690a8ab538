/**
 * A memo of a pure function of a string, holding at most a fixed number of answers: the oldest is
 * forgotten first. For per-peer work on the datagram path (parsing and formatting addresses), where the
 * keys are a cluster's few addresses but come from the network, so the memory must not grow with them.
 */
export class BoundedMemo<V> {
  private readonly answers = new Map<string, V>();

  /**
   * @param capacity - answers kept at most (at least 1)
   * @param compute - the function; when it throws, nothing is remembered and the error reaches `get`'s
   *   caller
   */
  constructor(
    private readonly capacity: number,
    private readonly compute: (key: string) => V,
  ) {}

  /** `compute(key)`, computed once while remembered. */
  get(key: string): V {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const answer = this.compute(key);
    if (this.answers.size >= this.capacity) {
      // A Map iterates in insertion order, so its first key is the oldest.
      const oldest = this.answers.keys().next();
      if (oldest.done !== true) this.answers.delete(oldest.value);
    }
    this.answers.set(key, answer);
    return answer;
  }
}
