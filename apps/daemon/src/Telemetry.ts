/**
 * OpenTelemetry export of the daemon's traces and metrics over OTLP/HTTP, switched on by the standard
 * `OTEL_*` variables and nothing else (effect's own exporter: no OpenTelemetry SDK in the process):
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 *   `..._METRICS_ENDPOINT`) turns the signal on; `OTEL_TRACES_EXPORTER`/`OTEL_METRICS_EXPORTER` default
 *   to `otlp` as the specification says (`none` turns one off); `OTEL_SDK_DISABLED=true` turns all off;
 * - `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (the default) or `http/json`;
 * - `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` (default `warden`), `OTEL_RESOURCE_ATTRIBUTES`,
 *   `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL` as the specification defines them.
 * Logs stay on stderr unless `OTEL_LOGS_EXPORTER=otlp` asks for them too.
 *
 * Spans: one per batch (`BatchProcessor.process`), per API call (the client's method, e.g.
 * `AnalyzeV1.textWithRequest`, or `Transport.send`), per platform action (`ActionExecutor.act`), per feedback (`FeedbackService.send`). Their
 * attributes are ids, kinds and counts: never content, API keys or tokens.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { ConfigProvider, Effect, Layer, Schedule } from "effect"
import { Otlp, type OtlpExporter, OtlpSerialization } from "effect/observability"
import * as ProcessMetrics from "./admin/ProcessMetrics.ts"
import { version } from "./Version.ts"

type Env = Readonly<Record<string, string | undefined>>

const SIGNALS = ["TRACES", "METRICS"] as const

const endpointOf = (env: Env, signal: string): string | undefined =>
  env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined

/** Whether the environment asks for one signal to be exported: the SDK on, an endpoint, an exporter not `none`. */
const exports = (env: Env, signal: (typeof SIGNALS)[number]): boolean =>
  env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== "true" &&
  endpointOf(env, signal) !== undefined &&
  env[`OTEL_${signal}_EXPORTER`]?.trim() !== "none"

/** Whether the environment asks for any OTLP export. */
export const enabled = (env: Env = process.env): boolean => SIGNALS.some((s) => exports(env, s))

/** Whether the environment asks for traces to be exported (then the daemon spans each API call). */
export const tracesEnabled = (env: Env = process.env): boolean => exports(env, "TRACES")

/**
 * The environment as effect's exporter reads it, with the specification's defaults it leaves out:
 * `OTEL_{TRACES,METRICS}_EXPORTER=otlp` when an endpoint is set, `OTEL_LOGS_EXPORTER` only when
 * asked for.
 */
export const exporterEnv = (env: Env): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k.startsWith("OTEL_")) out[k] = v
  for (const s of SIGNALS)
    if (endpointOf(env, s) !== undefined && out[`OTEL_${s}_EXPORTER`] === undefined) out[`OTEL_${s}_EXPORTER`] = "otlp"
  return out
}

/**
 * The exporter layer, or an empty layer when no `OTEL_*` endpoint is set. Provided around the
 * daemon: its spans and metrics (effect's `Metric`s, the ones `/metrics` shows) go to the collector;
 * on shutdown what is buffered is flushed.
 */
export const layer = (env: Env = process.env): Layer.Layer<OtlpExporter.Flusher> | Layer.Layer<never> => {
  if (!enabled(env)) return Layer.empty
  const serialization =
    env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() === "http/json"
      ? OtlpSerialization.layerJson
      : OtlpSerialization.layerProtobuf
  return Otlp.layerFromConfig({
    resource: {
      ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: "warden" }),
      ...(env.OTEL_SERVICE_VERSION ? {} : { serviceVersion: version })
    }
  }).pipe(
    Layer.provide([serialization, NodeHttpClient.layerUndici]),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: exporterEnv(env) }))),
    // `/metrics` refreshes the build and process gauges at each scrape; a collector has no scrape.
    Layer.merge(
      Layer.effectDiscard(ProcessMetrics.update.pipe(Effect.repeat(Schedule.spaced("5 seconds")), Effect.forkScoped))
    )
  )
}
