/**
 * `@warden/core`: the one declaration of the Content Analysis and Feedback API — schemas, taxonomies,
 * errors and the `HttpApi` contract that the client, the sandbox and the OpenAPI document derive from.
 */
export * from "./Analysis.ts"
export * from "./ApiErrors.ts"
export * from "./CallInfo.ts"
export * as Characters from "./Characters.ts"
export * from "./ClientErrors.ts"
export * from "./Contract.ts"
export * from "./ErrorDecoder.ts"
export * from "./Feedback.ts"
export * as FieldViolations from "./FieldViolation.ts"
export { FieldViolation } from "./FieldViolation.ts"
export * from "./ImageAnalyzeRequest.ts"
export * from "./Legacy.ts"
export * as Limits from "./Limits.ts"
export * from "./Primitives.ts"
export * from "./ResellerFields.ts"
export * from "./Taxonomy.ts"
export * from "./TextAnalyzeRequest.ts"
export * from "./UsernameAnalyzeRequest.ts"
export * as OpenApiDocument from "./OpenApiDocument.ts"
export * as WardenErrors from "./WardenError.ts"
