// Bottleneck's light build (no clustering, no Redis) has the same API as the full one, but ships no types; the App's
// client (src/app/server.ts) and the tests' fast clients import it.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  export default Bottleneck;
}
