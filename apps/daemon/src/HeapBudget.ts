/**
 * The daemon's heap budget, set from inside the process so that no operator has to pass a heap flag.
 *
 * Why: on a machine with plenty of memory, Node 24's V8 lets the young generation grow to 64 MB per
 * semi-space (128 MB resident once both halves are touched) and lets the old generation reach up to
 * 4x its live size before a full collection. The daemon's live heap is ~50 MB (measured with a forced
 * GC under a 1,000,000-item backlog), yet its RSS reached 413-464 MB: young generation and garbage not
 * yet collected, not live data (docs/BENCHMARKS.md, "Daemon: memory").
 *
 * Two V8 settings are read at every collection (not only at start, unlike `--max-semi-space-size`),
 * so they can be set here: the semi-space growth factor (1 stops growth: it is 1 from the start, and 2
 * only inside `growOnce`, every 100 ms while the event loop is busy, as long as a doubling stays within
 * {@link youngGenerationMb} per semi-space), and the old generation's growing percent
 * ({@link oldGrowingPercent}: a full collection once the old generation has grown by that share over its
 * live size).
 *
 * What it bounds is the semi-space's capacity, at which V8 scavenges. Between two scavenges V8 may let
 * allocation run past it (committing pages up to `--max-semi-space-size`, V8's own 64 MB here), so the
 * young generation's resident size can exceed the budget for a moment in an allocation burst; the RSS
 * figures in docs/BENCHMARKS.md are what the daemon holds with that.
 *
 * An operator's own flags win: with `--max-semi-space-size` / `--semi-space-growth-factor` (young) or
 * `--heap-growing-percent` / `--max-old-space-size` (old) in `NODE_OPTIONS` or on the command line,
 * that part is left alone.
 */
import * as v8 from "node:v8"
import { performance } from "node:perf_hooks"

/**
 * Size of one semi-space the young generation may reach, in MB. 8 against 16: 20-30 MB less RSS, CPU per
 * item the same within the noise (5,000-item poll, 3 pairs: 8,690 vs 8,740 ms median, load ~45).
 */
export const youngGenerationMb = 8

/** How much the old generation may grow over its live size before a full collection, in percent. */
export const oldGrowingPercent = 30

const flags = (): string => `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`

const newSpace = (): v8.HeapSpaceInfo | undefined =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")

const semiSpaceMb = (): number => (newSpace()?.space_size ?? 0) / 2 / 2 ** 20

/**
 * Lets V8 double the young generation once, at most, and only here: growth is on (factor 2) while
 * short-lived garbage is allocated until a scavenge runs (the young generation's use drops), which is
 * where V8 decides on growth; then it is off again. Outside this call the factor is 1, so no burst of
 * the program's own work can grow it (with growth left on, one 1.5 s burst took it 1 -> 64 MB).
 */
const growOnce = (): void => {
  const used = () => newSpace()?.space_used_size ?? 0
  const budget = 4 * (newSpace()?.space_size ?? 0)
  v8.setFlagsFromString("--semi-space-growth-factor=2")
  try {
    let sink: Array<unknown> = []
    // Allocating only adds to the young generation's use, so the first drop is the scavenge. (Against
    // the use at the start instead, a young generation nearly empty then, as after the previous call's
    // scavenge in an idle process, never dropped below it: every call ran to `budget`, ~3 scavenges.)
    let last = used()
    for (let bytes = 0; bytes < budget; bytes += 64 * 1024) {
      for (let i = 0; i < 512; i++) sink = new Array(14)
      const now = used()
      if (now < last) break
      last = now
    }
    sink.length = 0
  } finally {
    v8.setFlagsFromString("--semi-space-growth-factor=1")
  }
}

/**
 * How often the budget is looked at. Below it, a busy event loop (utilisation over {@link busyShare}
 * since the last look) may grow the young generation at every look. With one look a second, a daemon
 * starting on a big poll spent its first ~3 s at 1-4 MB per semi-space: in a 20,000-item run 1,290-1,441
 * scavenges instead of 457-491, and 327-333 µs of CPU per item instead of 258-288 (docs/BENCHMARKS.md,
 * "Schema's slow path, and the young generation's ramp").
 *
 * An idle loop never grows it: V8 shrinks an idle young generation again by itself, so a growth once a
 * second while idle (as before) was undone and redone forever, one forced scavenge a second for nothing
 * (docs/BENCHMARKS.md, "An idle daemon, halved").
 */
const checkMillis = 100
const busyShare = 0.5

/**
 * Once the loop has been idle for {@link idleLooks} looks in a row, the budget looks once a second
 * instead, and goes back to every 100 ms as soon as a second held any real work ({@link wakeShare}, 50
 * ms): a burst waits at most a second for its first growth. Ten looks a second that find nothing were
 * ~1.3 ms of CPU per second of an idle daemon (5.8 against 4.4 ms without any look), a quarter of it.
 */
const idleCheckMillis = 1000
const idleLooks = 10
const wakeShare = 0.05

let installed = false

/** Applies the budget once per process (idempotent); the check's timer never keeps the process alive. */
export const install = (): void => {
  if (installed) return
  installed = true
  const given = flags()
  if (!/--heap-growing-percent|--max-old-space-size/.test(given)) {
    v8.setFlagsFromString(`--heap-growing-percent=${oldGrowingPercent}`)
  }
  if (/--max-semi-space-size|--semi-space-growth-factor/.test(given)) return
  // Growth off from the start (module loading would double the young generation several times in a
  // burst no timer sees); the check below allows one doubling at a time, below the budget (growOnce).
  v8.setFlagsFromString("--semi-space-growth-factor=1")
  let loop = performance.eventLoopUtilization()
  let quietLooks = 0
  const check = () => {
    const now = performance.eventLoopUtilization()
    const utilization = performance.eventLoopUtilization(now, loop).utilization
    loop = now
    const dozing = quietLooks >= idleLooks
    if (dozing ? utilization >= wakeShare : utilization >= busyShare) quietLooks = 0
    else quietLooks++
    setTimeout(check, quietLooks >= idleLooks ? idleCheckMillis : checkMillis).unref()
    if (utilization < busyShare || semiSpaceMb() * 2 > youngGenerationMb) return
    growOnce()
  }
  setTimeout(check, checkMillis).unref()
}
