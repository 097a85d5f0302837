import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/**
 * Certificate hash version 2 (issue #24): the anchored hash covers every shown field, the content
 * through salted RFC 9901 (SD-JWT) disclosures.
 *
 * - `hash` keeps the unsalted digest of the content or file (version 1's rule, DESIGN.md 3): the
 *   duplicate check (`certificates_user_hash_unique`, 409) and the `/hash/` lookups stay on it.
 * - `anchored_hash` is `data.hash` of a version 2 certificate, its Evidence `trustPointHash`;
 *   null for version 1, where `hash` is both.
 * - `issuer_origin`, `disclosable_content` (the content as the hash covers it) and `disclosures`
 *   (every disclosure: they hold the salts, so they are shown only to the certificate's readers)
 *   complete what the version 2 root is computed from.
 *
 * A version 1 certificate becomes version 2 when its issuer re-anchors it, in place.
 */
export const certificateHashVersion: Migration = {
  name: '0022-certificate-hash-version',

  async up(knex) {
    await knex.schema.alterTable('certificates', (table) => {
      table.smallint('hash_version').notNullable().defaultTo(1);
      table.specificType('anchored_hash', 'char(64)').nullable();
      table.text('issuer_origin').nullable();
      table.jsonb('disclosable_content').nullable();
      table.jsonb('disclosures').nullable();
      table.check(
        '(hash_version = 1 and anchored_hash is null and issuer_origin is null' +
          ' and disclosable_content is null and disclosures is null)' +
          ` or (hash_version = 2 and ${hexDigestCheck('anchored_hash')}` +
          " and disclosable_content is not null and jsonb_typeof(disclosable_content) = 'object'" +
          " and disclosures is not null and jsonb_typeof(disclosures) = 'array')",
        {},
        'certificates_hash_version_check',
      );
      // `/hash/{hash}` finds a version 2 certificate by its anchored hash too.
      table.index(['user_id', 'anchored_hash'], 'certificates_user_anchored_hash_idx', {
        predicate: knex.whereNotNull('anchored_hash'),
      });
    });
  },

  async down(knex) {
    await knex.schema.alterTable('certificates', (table) => {
      table.dropIndex(['user_id', 'anchored_hash'], 'certificates_user_anchored_hash_idx');
      table.dropChecks(['certificates_hash_version_check']);
      table.dropColumns(
        'disclosures',
        'disclosable_content',
        'issuer_origin',
        'anchored_hash',
        'hash_version',
      );
    });
  },
};
