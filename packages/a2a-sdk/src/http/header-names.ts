import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';

// In lower case, as @agentport/http's `requestHeader` takes them (Node's parsed headers are).

/** `A2A-Version`. */
export const VERSION_HEADER = A2A_VERSION_HEADER.toLowerCase();
/** `A2A-Extensions`. */
export const EXTENSIONS_HEADER = HTTP_EXTENSION_HEADER.toLowerCase();
/** `X-A2A-Extensions`, the v0.3 name. */
export const LEGACY_EXTENSIONS_HEADER = LEGACY_HTTP_EXTENSION_HEADER.toLowerCase();
