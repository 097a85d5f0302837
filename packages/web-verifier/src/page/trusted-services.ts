import {
  combineTrust,
  compareTrustDocuments,
  isLoopbackOrigin,
  trustOfDocument,
  type Trust,
  type TrustDocument,
  type TrustDocumentChange,
} from '@trustpoint/verifier';
import { element } from './dom.js';
import {
  fetchTrustDocument,
  loadPinnedOrigins,
  originOf,
  savePinnedOrigins,
  trustOfPinned,
  type PinnedOrigin,
} from './trusted-origins.js';

interface PendingChange {
  fetched: TrustDocument;
  changes: TrustDocumentChange[];
}

/**
 * The "Trusted services" section: the page's own service (when it is served by one) and the
 * origins the user pinned. What a verification trusts comes only from here.
 */
export class TrustedServices {
  readonly #list: HTMLElement;
  #own: { document: TrustDocument; local: boolean; servedFrom: string } | undefined;
  #ownProblem: string | undefined;
  #pinned: PinnedOrigin[] = loadPinnedOrigins();
  readonly #changes = new Map<string, PendingChange>();

  constructor(list: HTMLElement) {
    this.#list = list;
    this.render();
  }

  /**
   * The page's own service: trusted as the page itself is, since it served this script (under the
   * origin the page was opened at, and the one its document names).
   */
  setOwn(document: TrustDocument, local: boolean, servedFrom: string): void {
    this.#own = { document, local, servedFrom };
    this.#ownProblem = undefined;
    this.render();
  }

  setOwnProblem(problem: string): void {
    this.#ownProblem = problem;
    this.render();
  }

  trust(): Trust {
    return combineTrust(
      this.#own === undefined
        ? undefined
        : trustOfDocument(this.#own.document, this.#own.local ? { local: true } : {}),
      trustOfPinned(this.#pinned),
    );
  }

  isTrusted(origin: string): boolean {
    return (
      this.#own?.document.origin === origin ||
      this.#own?.servedFrom === origin ||
      this.#pinned.some((pinned) => pinned.document.origin === origin)
    );
  }

  /** Trusts an origin the user gave: fetches its document and pins it. */
  async add(typed: string): Promise<void> {
    const origin = originOf(typed);
    const document = await fetchTrustDocument(origin, { sameOrigin: true });
    const known = this.#pinned.find((pinned) => pinned.document.origin === origin);
    if (known !== undefined) {
      const changes = compareTrustDocuments(known.document, document);
      if (changes.some((change) => change.kind !== 'registryAdded')) {
        this.#changes.set(origin, { fetched: document, changes });
        this.render();
        throw new Error(
          `${origin} is already trusted, and its document changed since: see the warning under Trusted services`,
        );
      }
      // Only new registries, and the user asked to trust the origin again: that is their consent.
      if (changes.length > 0) {
        this.#changes.set(origin, { fetched: document, changes });
        this.#accept(origin);
      }
      return;
    }
    this.#pinned = [
      ...this.#pinned,
      { document, pinnedAt: new Date().toISOString(), local: isLoopbackOrigin(origin) },
    ];
    savePinnedOrigins(this.#pinned);
    this.render();
  }

  remove(origin: string): void {
    this.#pinned = this.#pinned.filter((pinned) => pinned.document.origin !== origin);
    this.#changes.delete(origin);
    savePinnedOrigins(this.#pinned);
    this.render();
  }

  /**
   * Reads each pinned origin's document again and reports how it changed, as `known_hosts` does:
   * the pinned document stays in use until the user accepts the new one.
   */
  async checkForChanges(): Promise<void> {
    await Promise.all(
      this.#pinned.map(async (pinned) => {
        try {
          const fetched = await fetchTrustDocument(pinned.document.origin, { sameOrigin: true });
          const changes = compareTrustDocuments(pinned.document, fetched);
          if (changes.length > 0) this.#changes.set(pinned.document.origin, { fetched, changes });
        } catch {
          // Unreachable now: the pinned document is still what the user trusted.
        }
      }),
    );
    this.render();
  }

  #accept(origin: string): void {
    const change = this.#changes.get(origin);
    if (change === undefined) return;
    this.#pinned = this.#pinned.map((pinned) =>
      pinned.document.origin === origin
        ? { ...pinned, document: change.fetched, pinnedAt: new Date().toISOString() }
        : pinned,
    );
    this.#changes.delete(origin);
    savePinnedOrigins(this.#pinned);
    this.render();
  }

  render(): void {
    const items: HTMLElement[] = [];
    if (this.#own !== undefined) {
      items.push(
        entry(this.#own.document, 'the service this page comes from', this.#own.local, undefined),
      );
    } else if (this.#ownProblem !== undefined) {
      items.push(element('li', this.#ownProblem, 'warning'));
    }
    for (const pinned of this.#pinned) {
      const origin = pinned.document.origin;
      const item = entry(
        pinned.document,
        `pinned ${pinned.pinnedAt}`,
        pinned.local,
        this.#changes.get(origin),
      );
      const accept = item.querySelector<HTMLButtonElement>('button.accept');
      accept?.addEventListener('click', () => {
        this.#accept(origin);
      });
      const remove = element('button', 'Remove', 'secondary remove');
      remove.type = 'button';
      remove.addEventListener('click', () => {
        this.remove(origin);
      });
      item.append(remove);
      items.push(item);
    }
    if (items.length === 0) {
      items.push(
        element(
          'li',
          'None yet: a certificate can be valid on chain and still not be trusted. Add the origin of the service that issued it.',
          'help',
        ),
      );
    }
    this.#list.replaceChildren(...items);
  }
}

function entry(
  document: TrustDocument,
  pinnedHow: string,
  local: boolean,
  change: PendingChange | undefined,
): HTMLElement {
  const item = element('li');
  item.dataset.origin = document.origin;
  item.append(element('strong', document.name), ' ', element('span', document.origin, 'mono'));
  item.append(element('span', ` (${pinnedHow})`, 'help'));
  if (local) {
    item.append(
      element(
        'p',
        "This machine's own instance (a loopback origin): its development registries count here.",
        'help',
      ),
    );
  }
  const networks = element('ul', undefined, 'pins');
  for (const network of document.networks) {
    const line = element(
      'li',
      `${network.name ?? 'network'} ${network.networkId}: chain ${String(network.chainId)}, genesis ${network.genesisHash}`,
    );
    const registries = element('ul');
    for (const registry of network.registries) {
      const blocks = `blocks ${String(registry.fromBlock ?? 0)} to ${registry.toBlock === undefined ? 'now' : String(registry.toBlock)}`;
      registries.append(element('li', `${registry.kind} ${registry.address} (${blocks})`, 'mono'));
    }
    line.append(registries);
    networks.append(line);
  }
  item.append(networks);
  if (change !== undefined) {
    const serious = change.changes.some((item) => item.kind !== 'registryAdded');
    const warning = element('div', undefined, 'warning');
    warning.dataset.changed = serious ? 'true' : 'added';
    warning.append(
      element(
        'p',
        serious
          ? `WARNING: the trust document of ${document.origin} CHANGED since you pinned it. The pinned one is still used. It may have moved to other registries, or somebody may be impersonating it:`
          : `${document.origin} publishes registries you did not pin. They are not trusted until you accept them:`,
      ),
    );
    const list = element('ul');
    for (const item of change.changes) list.append(element('li', item.detail));
    warning.append(list);
    const accept = element(
      'button',
      serious ? 'I know why: trust the new document' : 'Trust the new document',
      'secondary accept',
    );
    accept.type = 'button';
    warning.append(accept);
    item.append(warning);
  }
  return item;
}
