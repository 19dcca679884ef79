/** How a client's methods are wrapped: a span per call (Effect code), or not (the Promise client). */
import * as Effect from "effect/Effect"

/** `f` as `Effect.fn(name)`: each call is a span named `name`, with its call site kept for errors. */
export const spanned = <A, B, E>(name: string, f: (a: A) => Effect.Effect<B, E>): ((a: A) => Effect.Effect<B, E>) =>
  Effect.fn(name)(f)

/** `f` itself: no span, no call-site stack. */
export const untraced = <A, B, E>(_name: string, f: (a: A) => Effect.Effect<B, E>): ((a: A) => Effect.Effect<B, E>) => f
