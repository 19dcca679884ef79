/**
 * Which OTEL_* environments export what: any export turns the OTLP layer on, and only a traces export
 * turns on the span per API call (it costs ~11% of the data path's allocation, docs/BENCHMARKS.md).
 */
import { describe, expect, it } from "vitest"
import * as Telemetry from "../src/Telemetry.ts"

const ENDPOINT = "http://127.0.0.1:4318"

describe("Telemetry.enabled and Telemetry.tracesEnabled", () => {
  it.each([
    ["nothing set", {}, false, false],
    ["a shared endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, true, true],
    ["a traces endpoint only", { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ENDPOINT }, true, true],
    ["a metrics endpoint only", { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: ENDPOINT }, true, false],
    [
      "a shared endpoint, traces exporter none",
      { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: "none" },
      true,
      false
    ],
    [
      "a shared endpoint, both exporters none",
      { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: " none " },
      false,
      false
    ],
    ["the SDK disabled", { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "TRUE" }, false, false],
    ["an empty endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: "" }, false, false]
  ] as const)("%s", (_, env, any, traces) => {
    expect(Telemetry.enabled(env)).toBe(any)
    expect(Telemetry.tracesEnabled(env)).toBe(traces)
  })
})
