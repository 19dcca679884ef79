/**
 * The paths of the API's endpoints, apart from the `HttpApi` contract (`Contract.ts`) so that a client
 * can name them without loading `effect/http-api` (about a hundred modules at import).
 */
/** The paths of every endpoint, for code that needs them without the `HttpApi` (logs, limiters, CLI). */
export const PATHS = {
  analyzeText: "/analyze/v1/text",
  analyzeImage: "/analyze/v1/image",
  analyzeUsername: "/analyze/v1/username",
  feedbackText: "/feedback/v1/text",
  feedbackImage: "/feedback/v1/image",
  legacyAnalyze: "/api/analyze"
} as const
/** The name of an endpoint. */
export type EndpointName = keyof typeof PATHS

/** The label of an endpoint in errors and logs: method and path (`POST /analyze/v1/text`). */
export const endpointLabel = (endpoint: EndpointName): string => `POST ${PATHS[endpoint]}`
