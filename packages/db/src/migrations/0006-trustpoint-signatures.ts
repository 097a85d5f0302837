import type { Migration } from './migration.js';

/**
 * The qualified signature (a compact JWS) behind each Signature trustpoint. The chain holds only
 * its double hash, so the service must keep the JWS itself for anyone to check the signature.
 */
export const trustpointSignatures: Migration = {
  name: '0006-trustpoint-signatures',

  async up(knex) {
    await knex.schema.alterTable('trustpoints', (table) => {
      table.text('signature').nullable();
      table.check('signature is null or type = 2', {}, 'trustpoints_signature_type_check');
    });
    // At most one Signature per certificate: concurrent signing requests cannot both be charged.
    await knex.raw(
      'create unique index trustpoints_one_signature_unique on trustpoints (certificate_id) where type = 2',
    );
  },

  async down(knex) {
    await knex.raw('drop index trustpoints_one_signature_unique');
    await knex.schema.alterTable('trustpoints', (table) => {
      table.dropChecks(['trustpoints_signature_type_check']);
      table.dropColumn('signature');
    });
  },
};
