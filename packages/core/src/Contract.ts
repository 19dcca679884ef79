/**
 * The Content Analysis and Feedback API, declared once as an Effect `HttpApi`: the five v1 endpoints,
 * the legacy batch endpoint, both auth schemes, and the success and error bodies per status. The
 * sandbox serves it (`HttpApiBuilder`), clients may derive from it (`HttpApiClient`), and
 * `openapi.json` is generated from it (`pnpm --filter @warden/core openapi`).
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { ImageAnalyzeResponse, TextAnalyzeResponse, UsernameAnalyzeResponse } from "./Analysis.ts"
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  QuotaError,
  TransientError
} from "./ApiErrors.ts"
import { FeedbackResponse, ImageFeedbackRequest, TextFeedbackRequest } from "./Feedback.ts"
import { ImageAnalyzeRequest } from "./ImageAnalyzeRequest.ts"
import { LegacyAnalyzeRequest, LegacyAnalyzeResponse } from "./Legacy.ts"
import { TextAnalyzeRequest } from "./TextAnalyzeRequest.ts"
import { UsernameAnalyzeRequest } from "./UsernameAnalyzeRequest.ts"

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

/**
 * `Authorization: ApiKey <key>` on every v1 call. The scheme is case-sensitive (spec, Authentication
 * rule 1): a server must check the raw header, since `HttpApiSecurity.http` compares it loosely.
 */
export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth>()("@warden/core/ApiKeyAuth", {
  security: { apiKey: HttpApiSecurity.http({ scheme: "ApiKey" }) },
  error: AuthenticationError,
  requiredForClient: true
}) {}

/** `X-Api-Key: <key>` on the legacy batch endpoint (spec, Authentication rule 5). */
export class LegacyApiKeyAuth extends HttpApiMiddleware.Service<LegacyApiKeyAuth>()("@warden/core/LegacyApiKeyAuth", {
  security: { legacyApiKey: HttpApiSecurity.apiKey({ key: "X-Api-Key", in: "header" }) },
  error: AuthenticationError,
  requiredForClient: true
}) {}

/** Request validation: a body that breaks the schemas is answered 400 with every field violation. */
export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()(
  "@warden/core/RequestValidation",
  { error: BadRequestError }
) {}

const analyzeErrors = [PermissionDeniedError, QuotaError, TransientError] as const

/** `POST /analyze/v1/{text,image,username}`. */
export class AnalyzeGroup extends HttpApiGroup.make("analyze")
  .add(
    HttpApiEndpoint.post("text", PATHS.analyzeText, {
      payload: TextAnalyzeRequest,
      success: TextAnalyzeResponse,
      error: analyzeErrors
    }).annotate(OpenApi.Summary, "Analyse a text"),
    HttpApiEndpoint.post("image", PATHS.analyzeImage, {
      payload: ImageAnalyzeRequest,
      success: ImageAnalyzeResponse,
      error: analyzeErrors
    }).annotate(OpenApi.Summary, "Analyse an image, by URL or inline bytes"),
    HttpApiEndpoint.post("username", PATHS.analyzeUsername, {
      payload: UsernameAnalyzeRequest,
      success: UsernameAnalyzeResponse,
      error: analyzeErrors
    }).annotate(OpenApi.Summary, "Analyse a username")
  )
  .middleware(ApiKeyAuth) {}

const feedbackErrors = [PermissionDeniedError, NotFoundError, QuotaError, TransientError] as const

/** `POST /feedback/v1/{text,image}`. */
export class FeedbackGroup extends HttpApiGroup.make("feedback")
  .add(
    HttpApiEndpoint.post("text", PATHS.feedbackText, {
      payload: TextFeedbackRequest,
      success: FeedbackResponse,
      error: feedbackErrors
    }).annotate(OpenApi.Summary, "Report a wrong text classification"),
    HttpApiEndpoint.post("image", PATHS.feedbackImage, {
      payload: ImageFeedbackRequest,
      success: FeedbackResponse,
      error: feedbackErrors
    }).annotate(OpenApi.Summary, "Report a wrong image classification")
  )
  .middleware(ApiKeyAuth) {}

/** `POST {legacy_base_url}/api/analyze`. */
export class LegacyGroup extends HttpApiGroup.make("legacy")
  .add(
    HttpApiEndpoint.post("analyze", PATHS.legacyAnalyze, {
      payload: LegacyAnalyzeRequest,
      success: LegacyAnalyzeResponse,
      error: [QuotaError, TransientError]
    }).annotate(OpenApi.Summary, "Analyse up to 100 text messages (legacy batch)")
  )
  .middleware(LegacyApiKeyAuth) {}

/** The whole API. Payloads are decoded reporting every violation at once, refusing unknown fields. */
export class ContentAnalysisApi extends HttpApi.make("content-analysis")
  .add(AnalyzeGroup)
  .add(FeedbackGroup)
  .add(LegacyGroup)
  .middleware(RequestValidation)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Content Analysis and Feedback API",
      version: "1",
      description:
        "Classifies text, images and usernames for harmful content, takes feedback on wrong verdicts, and keeps a legacy batch endpoint. Generated by @warden/core from its HttpApi declaration."
    })
  ) {}
