/**
 * One GitHub request of an effect, between two crash failpoints: the reliability suite kills the step before a
 * request is sent (`effect:before-request#n`) and after its answer came but before anything was done with it
 * (`effect:after-request#n`, a write GitHub made that the step never learnt of). Inert outside those tests.
 */
import { failpoint } from '../../os/crash-failpoint.js';

export async function effectRequest<T>(call: () => Promise<T>): Promise<T> {
  failpoint('effect:before-request');
  const answer = await call();
  failpoint('effect:after-request');
  return answer;
}
