/**
 * The schema of the daemon's configuration file (`warden.yaml`) and the decoded `WardenConfig`: the
 * whole file from its sections (each in its own module: ApiSection, StateSection, SourceSection,
 * SinkSection, AdminSection, LogSection, ClusterSection, ModeratorsSection, AuthorsSection).
 *
 * Every section but `sources` is optional; every key with a default is filled in once decoded.
 * Durations come out as `Duration`, secrets as `Redacted<string>`, `HOST:PORT` as `{ host, port }`.
 * Secret references (`${env:NAME}`, `${file:path}`) are resolved before this schema runs (`SecretRef`).
 */
import { Schema } from "effect"
import { withDefault } from "../domain/internal/Schemas.ts"
import { AdminSection } from "./AdminSection.ts"
import { ApiSection } from "./ApiSection.ts"
import { AuthorsSection } from "./AuthorsSection.ts"
import { ClusterSection } from "./ClusterSection.ts"
import { LogSection } from "./LogSection.ts"
import { ModeratorEntry } from "./ModeratorsSection.ts"
import { type Sink, SinkEntry } from "./SinkSection.ts"
import { type Source, SourceEntry } from "./SourceSection.ts"
import { StateSection, type StateStore } from "./StateSection.ts"

/** The whole file as written (before connector configs are decoded and defaults are resolved). */
export const WardenConfigFile = Schema.Struct({
  api: ApiSection,
  state: StateSection.pipe(withDefault({})),
  sources: Schema.Array(SourceEntry).pipe(withDefault([])),
  sinks: Schema.Array(SinkEntry).pipe(withDefault([{ type: "stdout" }])),
  admin: AdminSection.pipe(withDefault({})),
  log: LogSection.pipe(withDefault({})),
  dryRun: Schema.Boolean.pipe(withDefault(false)),
  cluster: ClusterSection.pipe(withDefault({})),
  moderators: Schema.Array(ModeratorEntry).pipe(withDefault([])),
  authors: AuthorsSection.pipe(withDefault({}))
})
/** The file as decoded by {@link WardenConfigFile}. */
export type WardenConfigFile = typeof WardenConfigFile.Type

/** The daemon's configuration, fully decoded and checked. */
export interface WardenConfig {
  /** Absolute path of the file it came from. */
  readonly path: string
  /** Absolute path of the data directory (`state.dir`, `WARDEN_STATE_DIR`, or `.warden` beside the file). */
  readonly dataDir: string
  readonly api: ApiSection
  readonly state: StateStore
  readonly sources: ReadonlyArray<Source>
  readonly sinks: ReadonlyArray<Sink>
  readonly admin: AdminSection
  readonly log: LogSection
  readonly dryRun: boolean
  readonly cluster: ClusterSection
  readonly moderators: ReadonlyArray<ModeratorEntry>
  readonly authors: AuthorsSection
}
