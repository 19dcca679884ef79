/**
 * The host of the sql sink in the conformance kit's child process (`killNine`): the state database as
 * a SQLite file, opened in the child's scope.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as SqliteClient from "../../src/state/SqliteClient.ts"

/** `makeHost({ filename })`: the sink's host on that SQLite file. */
export const makeHost = (args: unknown) =>
  Effect.gen(function* () {
    const { filename } = yield* Schema.decodeUnknownEffect(Schema.Struct({ filename: Schema.String }))(args)
    const sql = Context.get(yield* Layer.build(SqliteClient.layer({ filename })), SqlClient.SqlClient)
    return { name: "sql", setting: (field: string) => `sinks.0.${field}`, sql }
  })
