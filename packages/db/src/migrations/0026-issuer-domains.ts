import type { Migration } from './migration.js';

/**
 * The domains customers prove to issue in the name of (issue #22, "Who issued it").
 *
 * - `issuer_domains`: a user's claim of a domain (lowercase, punycode), proven once the service
 *   found the DNS TXT record `_trustpoint.<domain>` naming its origin and the user's account.
 *   `proven_at` is when it last was (null until then, and again once a check no longer finds the
 *   record); `checked_at` and `check_detail` say what the last check found. Several users may
 *   claim one domain: its holder decides, in its DNS, whom it names.
 * - `certificates.issuer_domain`: the proven domain a version 2 certificate names
 *   (`data.issuerDomain`, covered by its hash); null for the others, whose hash stays as it was.
 */
export const issuerDomains: Migration = {
  name: '0026-issuer-domains',

  async up(knex) {
    await knex.schema.createTable('issuer_domains', (table) => {
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('domain').notNullable();
      table.bigInteger('claimed_at').notNullable();
      table.bigInteger('proven_at').nullable();
      table.bigInteger('checked_at').nullable();
      table.text('check_detail').nullable();
      table.primary(['user_id', 'domain']);
      table.check("domain ~ '^[a-z0-9.-]{3,253}$'", {}, 'issuer_domains_domain_check');
    });
    await knex.schema.alterTable('certificates', (table) => {
      table.text('issuer_domain').nullable();
      table.check(
        'issuer_domain is null or hash_version = 2',
        {},
        'certificates_issuer_domain_check',
      );
    });
  },

  async down(knex) {
    await knex.schema.alterTable('certificates', (table) => {
      table.dropChecks(['certificates_issuer_domain_check']);
      table.dropColumn('issuer_domain');
    });
    await knex.schema.dropTable('issuer_domains');
  },
};
