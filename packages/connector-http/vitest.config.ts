import { wardenVitest } from "@warden/vitest-config"

export default wardenVitest()
