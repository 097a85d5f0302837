import { element } from './dom.js';

/** What the result section offers when the verdict is `untrusted`. */
export interface TrustHelp {
  /** The origin the certificate was read from, when the user does not trust it yet. */
  untrustedSource?: string | undefined;
  /** Trusts that origin (the user's click) and verifies again. */
  trustSource: (origin: string) => void;
}

/** For an untrusted verdict: the registries in question, the origin needed, how to trust it. */
export function renderHowToTrust(
  box: HTMLElement,
  records: readonly { verdict: string; smartContract?: string | undefined; networkId: number }[],
  help: TrustHelp,
): void {
  const untrusted = records.filter((record) => record.verdict === 'untrusted');
  if (untrusted.length === 0) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const registries = [
    ...new Set(
      untrusted.map(
        (record) => `${record.smartContract ?? '?'} on network ${String(record.networkId)}`,
      ),
    ),
  ];
  const children: (Node | string)[] = [
    element('p', `Recorded in ${registries.join(', ')}, which no service you trust publishes.`),
    element(
      'p',
      'It would need the origin of the service that publishes this registry among your Trusted services. Anybody can deploy a registry that answers anything: trust a service you know, never one only because a certificate or a link names it.',
    ),
  ];
  if (help.untrustedSource !== undefined) {
    const origin = help.untrustedSource;
    const line = element('p', 'It was read from ');
    line.append(element('span', origin, 'mono'), ', which you do not trust. ');
    const trust = element('button', `Trust ${origin} and verify again`, 'secondary trust-source');
    trust.type = 'button';
    trust.addEventListener('click', () => {
      help.trustSource(origin);
    });
    line.append(trust);
    children.push(line);
  }
  box.replaceChildren(...children);
  box.hidden = false;
}
