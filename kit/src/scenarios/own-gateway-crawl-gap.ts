/**
 * The least time between the scenarios' two listings of files. The conformance command waits
 * 1.1 s by default, for gateways that stamp whole seconds: an always-"now" timestamp there moves
 * only once a second has passed. This gateway serves the timestamps it staged, as ISO strings
 * with milliseconds; one stamped at request time would move between two listings 50 ms apart.
 */
export const OWN_GATEWAY_CRAWL_GAP_MS = 50;
