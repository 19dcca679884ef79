/**
 * `@warden/connector-rss`: the RSS / Atom / RDF / JSON Feed connector of Warden.
 *
 * @since 0.1.0
 */

/** The stable identifier of a feed's author (`author.identifier`). */
export * as AuthorIdentifier from "./AuthorIdentifier.ts"

/** Polite HTTP fetching of feeds. */
export * as FeedFetcher from "./FeedFetcher.ts"

/** Feed parsing, normalised across formats. */
export * as FeedParser from "./FeedParser.ts"

/** HTML to plain text. */
export * as HtmlText from "./HtmlText.ts"

/** Feed language tags to the API's ISO 639-1 codes. */
export * as LanguageCode from "./LanguageCode.ts"

/** The checkpoint schema. */
export * as RssCheckpoint from "./RssCheckpoint.ts"

/** The config schema. */
export * as RssConfig from "./RssConfig.ts"

/** The connector, its source and layers. */
export * as RssConnector from "./RssConnector.ts"

/** The connector definition, under the name the registry looks for. */
export { connector, layer, layerConfig, make } from "./RssConnector.ts"
