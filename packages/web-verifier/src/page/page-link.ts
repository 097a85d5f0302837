/**
 * A link that opens the page on a certificate (what a certificate's QR code holds):
 * `#certID=…&service=…&rpc=31337=https://…`. Links are anybody's to write: the certID and the
 * service to read it from are prefilled, but a link's nodes are only proposed to the user, and
 * its service is never trusted because the link names it.
 */
export interface PageLink {
  certID: string | undefined;
  service: string | undefined;
  rpc: string[];
}

export function readPageLink(hash: string): PageLink {
  const parameters = new URLSearchParams(hash.replace(/^#/, ''));
  const text = (name: string) => {
    const value = parameters.get(name)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    certID: text('certID'),
    service: text('service'),
    rpc: parameters
      .getAll('rpc')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  };
}
