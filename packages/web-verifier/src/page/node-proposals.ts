import { element } from './dom.js';
import { newNodeLines, rememberRpcText } from './rpc-settings.js';

/** Nodes somebody else suggests: a link's `rpc` parameters, or this instance's local chain. */
export interface NodeProposal {
  /** Who proposes it, as the user reads it: "This link", "This instance". */
  source: string;
  lines: readonly string[];
}

/**
 * Shows the proposals that would add a node to the user's list, each with a button: the user's
 * nodes change only by their click (a link could otherwise point the page at a node that lies).
 */
export function showNodeProposals(
  list: HTMLElement,
  rpcInput: HTMLTextAreaElement,
  proposals: readonly NodeProposal[],
): void {
  const items = proposals.flatMap((proposal) => {
    const lines = newNodeLines(rpcInput.value, proposal.lines);
    if (lines.length === 0) return [];
    const item = element('li');
    item.append(
      `${proposal.source} proposes ${lines.length === 1 ? 'a node' : 'nodes'} you do not use: `,
      element('code', lines.join(', ')),
      ' ',
    );
    const use = element('button', lines.length === 1 ? 'Use this node' : 'Use these nodes');
    use.type = 'button';
    use.className = 'secondary use-node';
    use.addEventListener('click', () => {
      // First in the list, the user's own nodes kept after it as backups.
      rpcInput.value = [...lines, rpcInput.value.trim()].filter((text) => text !== '').join('\n');
      rememberRpcText(rpcInput.value);
      item.remove();
      list.hidden = list.childElementCount === 0;
    });
    item.append(use);
    return [item];
  });
  list.replaceChildren(...items);
  list.hidden = items.length === 0;
}
