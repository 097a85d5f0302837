/** File name (`cert-api.d.ts`, `track-api.d.ts`, `admin-api.d.ts`) to the text it should hold. */
export function renderGeneratedTypes(): Promise<Record<string, string>>;
/** File name to the text committed in src/generated. */
export function readCommittedTypes(names: readonly string[]): Promise<Record<string, string>>;
/** Generated file to the committed document (packages/openapi/documents) it is generated from. */
export const GENERATED_FROM: Readonly<Record<string, string>>;
export const GENERATED_DIR: string;
