/**
 * Values by key, for keys that come and go once per node execution: a source's staged rows, a
 * consumer's claims. The synchronous lifecycle adds and then takes one key at a time, so the latest
 * key sits in a slot in front of a Map (V8 reallocates a small Map's table on nearly every delete),
 * and the Map is made only when a second key is held. A key's one value is held as itself, several
 * as a list in the order added; `V` is never an array.
 */
export class KeyedLists<K, V> {
  private held = false;
  private slotKey: K | undefined = undefined;
  private slotValues: V | V[] | undefined = undefined;
  private others: Map<K, V | V[]> | null = null;

  add(key: K, value: V): void {
    if (this.held && this.slotKey === key) this.slotValues = appended(this.slotValues as V | V[], value);
    else if (!this.held && !this.others?.has(key)) {
      this.held = true;
      this.slotKey = key;
      this.slotValues = value;
    } else {
      const others = (this.others ??= new Map());
      const values = others.get(key);
      others.set(key, values === undefined ? value : appended(values, value));
    }
  }

  /** Removes the key's values and answers them: one as itself, several as a list. */
  take(key: K): V | V[] | undefined {
    if (this.held && this.slotKey === key) {
      const values = this.slotValues;
      this.held = false;
      this.slotKey = undefined;
      this.slotValues = undefined;
      return values;
    }
    const values = this.others?.get(key);
    if (values !== undefined) this.others!.delete(key);
    return values;
  }

  /** Every key's values, each as a list. */
  *lists(): Iterable<readonly V[]> {
    if (this.held) yield listOf(this.slotValues as V | V[]);
    if (this.others !== null) for (const values of this.others.values()) yield listOf(values);
  }
}

function appended<V>(values: V | V[], value: V): V[] {
  if (!Array.isArray(values)) return [values, value];
  values.push(value);
  return values;
}

const listOf = <V>(values: V | V[]): readonly V[] => (Array.isArray(values) ? values : [values]);
