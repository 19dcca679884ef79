// A `module:` plugin for the process tests: the test platform's connector.
export { connector, connector as default } from "./TestPlatform.ts"
