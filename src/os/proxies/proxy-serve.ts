/**
 * What the key proxy (key-proxy.ts) and the replay proxy (replay-proxy.ts) share as servers: the step's keys and
 * every open attempt tab's served side by side, a tab opened with placeholders of its own and refused once closed,
 * and the server on a random port of 127.0.0.1.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelKey } from './key-proxy-rules.js';
import { ProxyTab, type TabLimit } from './key-proxy-tab.js';
import type { ModelPrice } from './model-prices.js';

/** The keys served now (the step's and every open tab's), the tab a key belongs to, and a tab's opening and closing. */
export interface ServedKeys {
  all: () => ModelKey[];
  tabOf: (k: ModelKey) => ProxyTab | undefined;
  openTab: (limits: TabLimit[], record?: boolean) => ProxyTab;
  closeTab: (tab: ProxyTab) => void;
}

/** The step's keys, and the tabs opened beside them: a closed tab's placeholders are refused from then on. */
export function servedKeys(
  stepKeys: readonly ModelKey[],
  prices: Readonly<Record<string, ModelPrice>>,
): ServedKeys {
  const tabs = new Map<ModelKey, ProxyTab>();
  return {
    all: () => [...stepKeys, ...tabs.keys()],
    tabOf: (k) => tabs.get(k),
    openTab: (limits, record) => {
      const tab = new ProxyTab(stepKeys, limits, prices, record);
      for (const k of tab.keys) tabs.set(k, tab);
      return tab;
    },
    closeTab: (tab) => {
      tab.closed = true;
      for (const k of tab.keys) tabs.delete(k);
    },
  };
}

/** Listens on a random port of 127.0.0.1; the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server and every connection to it; `also` ends what else the proxy holds open. */
export function stopServer(server: Server, also: () => void = () => {}): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    also();
  });
}
