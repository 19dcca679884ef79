/**
 * Time in the daemon's `@effect/vitest` tests. On the TestClock (`it.effect`) a test moves time itself
 * (`TestClock.adjust`) and asserts what happened before and at a delay; these helpers cover the rest:
 * waiting for work that is due now to land ({@link eventually}), moving the clock to an instant
 * ({@link adjustTo}), letting time pass until something starts ({@link passUntil}), and the clock at the
 * real time ({@link atWallTime}). No `Date.now()` is faked: the daemon reads time only from `Clock`.
 */
import { Clock, Duration, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"

/** Runs `effect` on the real clock: under `it.effect` the TestClock stands still meanwhile. */
const onRealClock = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    const clock = fiber.getRef(Clock.Clock) as Clock.Clock & Partial<Pick<TestClock.TestClock, "withLive">>
    return clock.withLive === undefined ? effect : clock.withLive(effect)
  })

/**
 * Checks `check` every 20 ms of real time until it holds, failing the test after `timeout`. On the
 * TestClock no virtual time passes while it waits: it waits for work already due (a fiber the clock
 * woke that is writing to SQLite or waiting on a socket), never for a delay to run out.
 */
export const eventually = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  what: string,
  timeout: Duration.Input = "30 seconds"
): Effect.Effect<void, E, R> =>
  onRealClock(
    check.pipe(
      Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (ok) => ok }),
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () =>
          Effect.die(
            new Error(`timed out after ${Duration.format(Duration.fromInputUnsafe(timeout))} waiting for ${what}`)
          )
      }),
      Effect.asVoid
    )
  )

/**
 * Lets time pass on the TestClock, `step` at a time, until `check` holds: for a start whose moment the
 * test does not control (the daemon's singletons start after its layer is built). Each step waits
 * 20 ms of real time for the work it made due.
 */
export const passUntil = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  what: string,
  step: Duration.Input = "20 millis"
) => TestClock.testClockWith((clock) => eventually(Effect.andThen(clock.adjust(step), check), what))

/**
 * Builds `layer` (the daemon) for the rest of the scope. At the end it is stopped while time passes on
 * the TestClock, 100 ms a step: its stop waits on the clock (the sinks' last delivery pauses between
 * looks at the outbox), and would wait for ever on a clock nobody moves.
 */
export const buildOnTestClock = <ROut, E, RIn>(layer: Layer.Layer<ROut, E, RIn>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() =>
      TestClock.testClockWith((clock) =>
        Effect.raceFirst(
          Scope.close(scope, Exit.void),
          Effect.forever(Effect.andThen(clock.adjust("100 millis"), onRealClock(Effect.sleep("5 millis"))))
        )
      )
    )
    return yield* Layer.buildWithScope(layer, scope)
  })

/** Moves the TestClock to `millis` (the clock's epoch milliseconds), running every sleep due by then. */
export const adjustTo = (millis: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => TestClock.adjust(Math.max(0, millis - now)))

/**
 * Sets the TestClock to the real time: the daemon reads time from `Clock`, so that "never" (a time of
 * 0) is then as long ago as it is in production, and the times stored are comparable with the real
 * ones other processes (or the test) write.
 */
export const atWallTime = Effect.suspend(() => TestClock.setTime(Date.now()))
