import { Tracer } from "effect"

/**
 * A tracer that keeps every span it starts, for tests that look at what a traced call would export
 * (span names, attributes, that no secret is among them). Provide it with `Effect.withTracer(tracer)`
 * or `Layer.succeed(Tracer.Tracer, tracer)`.
 */
export const recordingTracer = (): { readonly spans: Array<Tracer.NativeSpan>; readonly tracer: Tracer.Tracer } => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}
