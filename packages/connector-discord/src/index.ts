/**
 * `@warden/connector-discord`: the Discord connector of Warden.
 *
 * @since 0.1.0
 */

/** Backfill paging of channel messages. */
export * as Backfill from "./Backfill.ts"

/** The actions (`delete`, `timeoutAuthor`, `react`, `modLog`, `kick`). */
export * as DiscordActions from "./DiscordActions.ts"

/** The checkpoint schema. */
export * as DiscordCheckpoint from "./DiscordCheckpoint.ts"

/** The config schema. */
export * as DiscordConfig from "./DiscordConfig.ts"

/** The connector, its source, preview and layers. */
export * as DiscordConnector from "./DiscordConnector.ts"

/** The gateway (`@discordjs/ws`) wrapped in Effect. */
export * as DiscordGateway from "./DiscordGateway.ts"

/** Schemas of the gateway payloads and REST answers read. */
export * as DiscordPayloads from "./DiscordPayloads.ts"

/** References of Discord items. */
export * as DiscordReference from "./DiscordReference.ts"

/** The REST client (`@discordjs/rest` + `@discordjs/core`) wrapped in Effect. */
export * as DiscordRest from "./DiscordRest.ts"

/** Mapping of messages and members to item events. */
export * as MessageMapper from "./MessageMapper.ts"

/** The connector definition, under the name the registry looks for. */
export { connector, layer, layerConfig, make, preview } from "./DiscordConnector.ts"
