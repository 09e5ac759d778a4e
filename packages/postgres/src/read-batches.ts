// Reads by id that arrive together share one statement (statement-batches.ts): the reads
// of one shape (the same tables, with or without the caller's check) go out as
// rowsByIdBatchQuery, arrays of ids and callers, one row per read; a read alone is
// rowsByIdQuery, the statement it always was.

import type { RecordId } from 'plainrest';
import type { CallerGuard } from './sql-records.ts';
import { rowsByIdBatchQuery, rowsByIdQuery } from './sql-records.ts';
import type { BatchShape } from './statement-batches.ts';
import { StatementBatches } from './statement-batches.ts';

export type Row = Record<string, unknown>;

/** Sends a statement by name (postgres-store.ts runNamed) and gives its rows. */
export type SendRows = (text: string, values: unknown[]) => Promise<readonly Row[]>;

interface Read {
  readonly ids: readonly RecordId[];
  readonly caller: CallerGuard | undefined;
}

export class ReadBatches {
  readonly #send: SendRows;
  readonly #batches: StatementBatches<Read, Row>;
  readonly #idType: (table: string) => string;

  /** `maxInFlight`: the statements sent at once, the pool's size; `idType`: a table's `id` column's type. */
  constructor(send: SendRows, maxInFlight: number, idType: (table: string) => string) {
    this.#send = send;
    this.#batches = new StatementBatches(maxInFlight);
    this.#idType = idType;
  }

  /**
   * The row rowsByIdQuery gives for the records `ids` of `tables` (and `caller`'s check): at once when a connection is
   * free, else with the reads waiting with it.
   */
  read(tables: readonly string[], ids: readonly RecordId[], caller: CallerGuard | undefined): Promise<Row> {
    const checked = caller !== undefined;
    const key = `${checked ? '+' : '-'}${tables.join(' ')}`;
    return this.#batches.send(key, () => this.#shape(tables, checked), { ids, caller });
  }

  #shape(tables: readonly string[], checked: boolean): BatchShape<Read, Row> {
    return {
      alone: async ({ ids, caller }) => {
        const { text, values } = rowsByIdQuery(
          tables.map((table, index) => ({ table, id: ids[index] as RecordId })),
          caller,
        );
        return (await this.#send(text, values))[0] ?? {};
      },
      together: (reads) => {
        const values: unknown[] = tables.map((_, index) => reads.map((read) => read.ids[index]));
        if (checked)
          values.push(
            reads.map((read) => read.caller?.id),
            reads.map((read) => read.caller?.role ?? null),
          );
        return this.#send(rowsByIdBatchQuery(tables, tables.map(this.#idType), checked), values);
      },
    };
  }
}
