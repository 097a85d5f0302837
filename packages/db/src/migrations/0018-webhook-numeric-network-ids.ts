import type { Migration } from './migration.js';

const CERTIFICATE_OWNER = 'c.user_id';

/**
 * Webhook payloads carry `networkId` as the number the API answers (31337), not the text column
 * it is stored in ("31337"). The trigger functions of 0011 are replaced with ones that write the
 * number; `down` restores the text. A network id that is not decimal digits (none is accepted by
 * the API) stays text rather than failing the change whose event it is.
 */
function triggerFunctions(networkId: (column: string) => string): string[] {
  const trustpointData = (t: string) => `jsonb_build_object(
          'type', case ${t}.type when 0 then 'Evidence' when 1 then 'Revocation' else 'Signature' end,
          'timestamp', ${t}.timestamp, 'networkId', ${networkId(`${t}.network_id`)},
          'trustPointHash', ${t}.hash, 'smartContract', ${t}.smart_contract,
          'transactionHash', ${t}.transaction_hash)`;
  const evidenceData = (v: string) => `jsonb_build_object(
          'hash', ${v}.hash, 'timestamp', ${v}.timestamp, 'userOwner', ${v}.user_owner,
          'networkId', ${networkId(`${v}.network_id`)}, 'smartContract', ${v}.smart_contract,
          'transactionHash', ${v}.transaction_hash)`;
  const evidenceRecipients = (v: string) =>
    `(select a.user_id union select substr(${v}.user_owner, 10)) as recipient(user_id)`;
  return [
    `create or replace function webhook_trustpoints_anchored() returns trigger language plpgsql as $$
      begin
        perform webhook_publish(${CERTIFICATE_OWNER}, 'trustpoint.anchored',
            jsonb_build_object('certID', c.cert_id, 'trustpoint', ${trustpointData('n')}))
          from new_rows n join old_rows o on o.id = n.id
          join certificates c on c.id = n.certificate_id
          where o.transaction_hash is null and n.transaction_hash is not null
            and exists (select 1 from webhook_endpoints e where e.user_id = ${CERTIFICATE_OWNER});
        return null;
      end
      $$`,
    `create or replace function webhook_evidences_anchored() returns trigger language plpgsql as $$
      begin
        perform webhook_publish(recipient.user_id, 'evidence.anchored',
            jsonb_build_object('trackID', a.track_id, 'assetId', a.asset_id,
              'assetHash', a.asset_hash, 'evidence', ${evidenceData('n')}))
          from new_rows n join old_rows o on o.id = n.id
          join assets a on a.id = n.asset
          cross join lateral ${evidenceRecipients('n')}
          where o.transaction_hash is null and n.transaction_hash is not null
            and exists (select 1 from webhook_endpoints e where e.user_id = recipient.user_id);
        return null;
      end
      $$`,
    `create or replace function webhook_anchor_record_failed() returns trigger language plpgsql as $$
      begin
        if new.kind = 'trustpoint' then
          perform webhook_publish(${CERTIFICATE_OWNER}, 'trustpoint.failed',
              jsonb_build_object('certID', c.cert_id, 'trustpoint', ${trustpointData('t')},
                'failure', coalesce(new.error, 'refused by the registry')))
            from trustpoints t join certificates c on c.id = t.certificate_id
            where t.anchor_record_id = new.id and t.transaction_hash is null
              and exists (select 1 from webhook_endpoints e where e.user_id = ${CERTIFICATE_OWNER});
        else
          perform webhook_publish(recipient.user_id, 'evidence.failed',
              jsonb_build_object('trackID', a.track_id, 'assetId', a.asset_id,
                'assetHash', a.asset_hash, 'evidence', ${evidenceData('v')},
                'failure', coalesce(new.error, 'refused by the registry')))
            from evidences v join assets a on a.id = v.asset
            cross join lateral ${evidenceRecipients('v')}
            where v.anchor_record_id = new.id and v.transaction_hash is null
              and exists (select 1 from webhook_endpoints e where e.user_id = recipient.user_id);
        end if;
        return null;
      end
      $$`,
    `create or replace function webhook_certificate_revoked() returns trigger language plpgsql as $$
      begin
        perform webhook_publish(new.user_id, 'certificate.revoked',
          jsonb_build_object('certID', new.cert_id, 'revokedAt', new.revoked_at,
            'networkId', ${networkId('new.network_id')}));
        return null;
      end
      $$`,
  ];
}

export const webhookNumericNetworkIds: Migration = {
  name: '0018-webhook-numeric-network-ids',

  async up(knex) {
    await knex.raw(`
      create function webhook_network_id(p_network_id text) returns jsonb
      language sql immutable as $$
        select case when p_network_id ~ '^[0-9]{1,18}$' then to_jsonb(p_network_id::bigint)
          else to_jsonb(p_network_id) end
      $$`);
    for (const statement of triggerFunctions((column) => `webhook_network_id(${column})`)) {
      await knex.raw(statement);
    }
  },

  async down(knex) {
    for (const statement of triggerFunctions((column) => column)) {
      await knex.raw(statement);
    }
    await knex.raw('drop function webhook_network_id(text)');
  },
};
