import { wardenVitest } from "@warden/vitest-config"

// npm installs from the registry (a warm cache makes them quick): minutes, not the default 30 s.
export default wardenVitest({ test: { testTimeout: 240_000, hookTimeout: 240_000 } })
