/**
 * `@warden/sandbox`: a faithful local emulator of the whole Content Analysis and Feedback API, served
 * from `@warden/core`'s contract, with a deterministic classifier, magic markers, quotas, a fault
 * profile and a control API under `/_sandbox/`.
 */
export * as Classifier from "./Classifier.ts"
export * as Contract from "./Contract.ts"
export * as ControlApi from "./ControlApi.ts"
export * as Engine from "./Engine.ts"
export * as Envelope from "./Envelope.ts"
export * as Faults from "./Faults.ts"
export * as FeedbackStore from "./FeedbackStore.ts"
export * as ImageClassifier from "./ImageClassifier.ts"
export * as Png from "./internal/Png.ts"
export * as Keys from "./Keys.ts"
export * as Language from "./Language.ts"
export * as LegacyStore from "./LegacyStore.ts"
export * as Lexicon from "./Lexicon.ts"
export * as Markers from "./Markers.ts"
export * as Quotas from "./Quotas.ts"
export * as RequestLog from "./RequestLog.ts"
export * as Sandbox from "./Sandbox.ts"
export * as SandboxConfig from "./SandboxConfig.ts"
export * as Server from "./Server.ts"
export * as UsernameClassifier from "./UsernameClassifier.ts"
