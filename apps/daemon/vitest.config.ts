import { wardenVitest } from "@warden/vitest-config"

// The daemon's tests start real processes (the `warden` CLI from source, daemons, sandboxes): one start
// is ~1 s on an idle machine and over 10 s at load ~40 on two cores, where a test with two CLI runs
// went past the shared 30 s default (client-cli, "an API failure is exit 1"). The bound is a hang
// guard; no test here measures speed.
export default wardenVitest({ test: { testTimeout: 120_000, hookTimeout: 120_000 } })
