import { URL, URLSearchParams } from 'node:url';

/**
 * Stands in for `whatwg-url` in the Lambda bundles (serverless.yml `custom.esbuild.alias`). client-node's
 * node-fetch imports it only as a fallback (`Url.URL || whatwgUrl.URL`) for a Node without a global URL,
 * and the package's Unicode tables (tr46, ~260 KB) would otherwise be compiled on every cold start.
 */
export default { URL, URLSearchParams };
export { URL, URLSearchParams };
