/**
 * The OpenAPI 3.1 document of the listener's two routes, served at `GET /openapi.json`. The request
 * and answer schemas are generated from the schemas the listener decodes with (ItemInput.Item,
 * PushHost.CheckResult), so the document cannot drift from what is accepted.
 *
 * @since 0.1.0
 */
import { ConfigDuration, PushHost } from "@warden/connector"
import { Schema } from "effect"
import type { Config } from "./HttpConfig.ts"
import { Item } from "./ItemInput.ts"

type Json = Record<string, unknown>

/** A schema as JSON Schema 2020-12, its definitions gathered into `defs` (referenced as `#/components/schemas/`). */
const jsonSchema = (schema: Schema.Top, defs: Json): Json => {
  const doc = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  Object.assign(defs, doc.definitions)
  return JSON.parse(JSON.stringify(doc.schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json
}

/** `{ [name]: schema }`, unless the schema is only a reference to its own definition (kept in `defs`). */
const named = (name: string, schema: Json): Json =>
  schema.$ref === `#/components/schemas/${name}` ? {} : { [name]: schema }

const envelope = (code: string, key: string, details: Json): Json => ({
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "details"],
      properties: {
        code: { const: code },
        details: { type: "object", required: [key], properties: { [key]: details } }
      }
    }
  }
})

const fieldViolations: Json = {
  type: "object",
  required: ["fieldViolations"],
  properties: {
    fieldViolations: {
      type: "array",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } }
      }
    }
  }
}

const errors = (extra: Json = {}): Json => ({
  "400": {
    description: "An invalid body: every problem, each naming its field",
    content: { "application/json": { schema: { $ref: "#/components/schemas/BadRequestError" } } }
  },
  "401": {
    description: "No valid bearer token or Standard Webhooks signature",
    content: { "application/json": { schema: { $ref: "#/components/schemas/AuthenticationError" } } }
  },
  "413": {
    description: "The body is over the source's maxBodyBytes",
    content: { "application/json": { schema: { $ref: "#/components/schemas/BadRequestError" } } }
  },
  "429": {
    description: "The client's rate is exceeded: the quota's name and value; wait Retry-After seconds",
    headers: { "Retry-After": { schema: { type: "integer" } } },
    content: { "application/json": { schema: { $ref: "#/components/schemas/QuotaError" } } }
  },
  "503": {
    description: "The state could not record the request: nothing was accepted, send it again",
    content: { "application/json": { schema: { $ref: "#/components/schemas/TransientError" } } }
  },
  ...extra
})

/** The document for a source's config (its limits are in the descriptions). */
export const document = (config: Config): Json => {
  const defs: Json = {}
  const item = jsonSchema(Item, defs)
  const checkResult = jsonSchema(PushHost.CheckResult, defs)
  const itemResult = {
    type: "object",
    required: ["index", "status"],
    properties: {
      index: { type: "integer" },
      reference: { type: "string" },
      status: { enum: ["accepted", "rejected"] },
      error: { $ref: "#/components/schemas/BadRequestError" }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Warden push source",
      version: "1",
      description:
        "Push items to Warden (analysed within the quota, recorded, acted on, durable once answered 202) or check an item before publishing it."
    },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        standardWebhooks: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Standard Webhooks: webhook-id, webhook-timestamp (seconds, within 5 minutes) and webhook-signature v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed with the whsec_ secret"
        }
      },
      schemas: {
        ...defs,
        ...named("Item", item),
        ...named("CheckResult", checkResult),
        BadRequestError: envelope("BAD_REQUEST_ERROR", "badRequestError", fieldViolations),
        AuthenticationError: envelope("AUTHENTICATION_ERROR", "authenticationError", {
          type: "object",
          required: ["reason"],
          properties: { reason: { type: "string" } }
        }),
        QuotaError: envelope("QUOTA_ERROR", "quotaError", {
          type: "object",
          required: ["violations"],
          properties: {
            violations: {
              type: "array",
              items: {
                type: "object",
                required: ["quotaName", "quotaValue"],
                properties: { quotaName: { type: "string" }, quotaValue: { type: "number" } }
              }
            }
          }
        }),
        TransientError: envelope("TRANSIENT_ERROR", "transientError", {
          type: "object",
          required: ["reason"],
          properties: { reason: { type: "string" } }
        })
      }
    },
    security: [{ bearer: [] }, { standardWebhooks: [] }],
    paths: {
      "/v1/items": {
        post: {
          operationId: "pushItems",
          summary: `Push one item or up to ${config.maxItemsPerRequest}: answered once durably recorded as received`,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { $ref: "#/components/schemas/Item" },
                    {
                      type: "array",
                      items: { $ref: "#/components/schemas/Item" },
                      maxItems: config.maxItemsPerRequest
                    },
                    {
                      type: "object",
                      required: ["items"],
                      properties: {
                        items: {
                          type: "array",
                          items: { $ref: "#/components/schemas/Item" },
                          minItems: 1,
                          maxItems: config.maxItemsPerRequest
                        }
                      }
                    }
                  ]
                }
              }
            }
          },
          responses: {
            "202": {
              description: "The valid items are recorded (not yet analysed); each invalid one is refused alone",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["accepted", "rejected", "items"],
                    properties: {
                      accepted: { type: "integer" },
                      rejected: { type: "integer" },
                      items: { type: "array", items: itemResult }
                    }
                  }
                }
              }
            },
            ...errors()
          }
        }
      },
      "/v1/check": {
        post: {
          operationId: "checkItem",
          summary: "May this item be published? The decision within the deadline",
          parameters: [
            {
              name: "deadlineMillis",
              in: "query",
              required: false,
              description: `Wait at most this long (at most the source's ${ConfigDuration.format(config.check.deadline)})`,
              schema: { type: "integer", minimum: 1 }
            }
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } }
          },
          responses: {
            "200": {
              description:
                "decidedBy verdict: from the recorded verdict and the source's rules; failureMode: no verdict within the deadline (the item is still analysed and recorded)",
              content: { "application/json": { schema: { $ref: "#/components/schemas/CheckResult" } } }
            },
            ...errors()
          }
        }
      }
    }
  }
}
