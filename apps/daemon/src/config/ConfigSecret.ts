/**
 * A secret of the config file itself (api key, postgres URL, admin token), marked as the connectors'
 * and sinks' are so `config check` can warn when one is written inline. Shared by the sections.
 */
import { ConfigField } from "@warden/connector"
import { Secret } from "../domain/internal/Schemas.ts"

/**
 * A secret of the file itself, marked as the connectors' and sinks' are (`ConfigField.secret`): the
 * mark is what `config check` reads to warn when one is written inline.
 */
export const ConfigSecret = ConfigField.secret(Secret)
