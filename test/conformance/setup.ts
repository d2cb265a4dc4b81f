import { setFallbackDestinations } from "../../src/providers/destination-scope";

// The conformance suite calls adapters directly against capture servers on 127.0.0.1.
setFallbackDestinations({ allowPrivate: true });
