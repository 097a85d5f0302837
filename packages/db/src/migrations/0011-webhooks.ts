import type { Migration } from './migration.js';

/** Who hears of a certificate's changes: its issuer. */
const CERTIFICATE_OWNER = 'c.user_id';

/**
 * Webhooks: the endpoints users register, the events they are told of and one delivery per event
 * and endpoint, with the log of every attempt.
 *
 * Events are written by triggers, in the transaction of the state change itself (an outbox):
 * whichever process settles a batch (the anchoring engine, in any process or thread) or revokes
 * a certificate, the event commits with it or not at all. A trigger writes an event only for a
 * user with an endpoint that wants its type, and fans it out at once into one delivery per such
 * endpoint: each endpoint then retries on its own schedule and is claimed on its own by the
 * workers, an endpoint added later does not receive older events, and a deleted endpoint takes
 * its deliveries with it. Users without endpoints cost one index probe per changed row.
 *
 * The trustpoint and evidence triggers are statement triggers with transition tables (a settled
 * batch of hundreds of rows is one set-based insert); the certificate and anchor record ones are
 * row triggers behind a WHEN clause, because those tables are updated often (the engine moves
 * anchor records between statuses all the time) and only a rare update is an event.
 */
export const webhooks: Migration = {
  name: '0011-webhooks',

  async up(knex) {
    await knex.schema.createTable('webhook_endpoints', (table) => {
      table.uuid('id').primary();
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('url').notNullable();
      table.text('description').notNullable().defaultTo('');
      // A JSON array of event types; null for every type.
      table.jsonb('event_types').nullable();
      // The signing secret, sealed (AES-256-GCM) under the service's key.
      table.text('secret_sealed').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.index(['user_id', 'created_at'], 'webhook_endpoints_user_idx');
    });

    await knex.schema.createTable('webhook_events', (table) => {
      // The Standard Webhooks `webhook-id`: msg_ + 32 hex characters.
      table.text('id').primary();
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('type').notNullable();
      table.jsonb('payload').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });

    await knex.schema.createTable('webhook_deliveries', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table
        .text('event_id')
        .notNullable()
        .references('id')
        .inTable('webhook_events')
        .onDelete('CASCADE');
      table
        .uuid('endpoint_id')
        .notNullable()
        .references('id')
        .inTable('webhook_endpoints')
        .onDelete('CASCADE');
      table
        .text('status')
        .notNullable()
        .defaultTo('pending')
        .checkIn(['pending', 'delivered', 'failed'], 'webhook_deliveries_status_check');
      table.integer('attempts').notNullable().defaultTo(0);
      // When a worker may next take it; a worker that takes it moves this past its lease.
      table.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      // Retries are counted from here (creation, or a manual redelivery).
      table.timestamp('retry_from', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.unique(['event_id', 'endpoint_id'], { indexName: 'webhook_deliveries_unique' });
      table.index(['next_attempt_at'], 'webhook_deliveries_due_idx', {
        predicate: knex.whereRaw("status = 'pending'"),
      });
      table.index(['endpoint_id'], 'webhook_deliveries_endpoint_idx');
    });

    await knex.schema.createTable('webhook_attempts', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table
        .bigInteger('delivery_id')
        .notNullable()
        .references('id')
        .inTable('webhook_deliveries')
        .onDelete('CASCADE');
      table
        .uuid('endpoint_id')
        .notNullable()
        .references('id')
        .inTable('webhook_endpoints')
        .onDelete('CASCADE');
      // 1 for the first attempt of the delivery, counting on through manual redeliveries.
      table.integer('attempt').notNullable();
      table.timestamp('attempted_at', { useTz: true }).notNullable();
      table.integer('status_code').nullable();
      table.text('error').nullable();
      table.integer('duration_ms').notNullable();
      table.index(['endpoint_id', 'id'], 'webhook_attempts_endpoint_idx');
      table.index(['delivery_id'], 'webhook_attempts_delivery_idx');
    });

    const wants = (user: string, type: string) =>
      `select 1 from webhook_endpoints e where e.user_id = ${user}
         and (e.event_types is null or e.event_types @> to_jsonb(${type}))`;
    // One event for the user, and one delivery per endpoint that wants it; nothing otherwise.
    await knex.raw(`
      create function webhook_publish(p_user text, p_type text, p_payload jsonb) returns void
      language sql as $$
        with event as (
          insert into webhook_events (id, user_id, type, payload)
            select 'msg_' || replace(gen_random_uuid()::text, '-', ''), p_user, p_type, p_payload
            where exists (${wants('p_user', 'p_type')})
            returning id
        )
        insert into webhook_deliveries (event_id, endpoint_id)
          select event.id, e.id from event join webhook_endpoints e on e.user_id = p_user
            and (e.event_types is null or e.event_types @> to_jsonb(p_type));
      $$`);

    const trustpointData = (t: string) => `jsonb_build_object(
          'type', case ${t}.type when 0 then 'Evidence' when 1 then 'Revocation' else 'Signature' end,
          'timestamp', ${t}.timestamp, 'networkId', ${t}.network_id,
          'trustPointHash', ${t}.hash, 'smartContract', ${t}.smart_contract,
          'transactionHash', ${t}.transaction_hash)`;
    const evidenceData = (v: string) => `jsonb_build_object(
          'hash', ${v}.hash, 'timestamp', ${v}.timestamp, 'userOwner', ${v}.user_owner,
          'networkId', ${v}.network_id, 'smartContract', ${v}.smart_contract,
          'transactionHash', ${v}.transaction_hash)`;
    // The asset's owner, and the user who registered the evidence when that is someone else.
    const evidenceRecipients = (v: string) =>
      `(select a.user_id union select substr(${v}.user_owner, 10)) as recipient(user_id)`;

    await knex.raw(`
      create function webhook_trustpoints_anchored() returns trigger language plpgsql as $$
      begin
        perform webhook_publish(${CERTIFICATE_OWNER}, 'trustpoint.anchored',
            jsonb_build_object('certID', c.cert_id, 'trustpoint', ${trustpointData('n')}))
          from new_rows n join old_rows o on o.id = n.id
          join certificates c on c.id = n.certificate_id
          where o.transaction_hash is null and n.transaction_hash is not null
            and exists (select 1 from webhook_endpoints e where e.user_id = ${CERTIFICATE_OWNER});
        return null;
      end
      $$`);
    await knex.raw(`
      create trigger trustpoints_webhooks after update on trustpoints
        referencing old table as old_rows new table as new_rows
        for each statement execute function webhook_trustpoints_anchored()`);

    await knex.raw(`
      create function webhook_evidences_anchored() returns trigger language plpgsql as $$
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
      $$`);
    await knex.raw(`
      create trigger evidences_webhooks after update on evidences
        referencing old table as old_rows new table as new_rows
        for each statement execute function webhook_evidences_anchored()`);

    await knex.raw(`
      create function webhook_anchor_record_failed() returns trigger language plpgsql as $$
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
      $$`);
    await knex.raw(`
      create trigger anchor_records_webhooks after update of status on anchor_records
        for each row when (new.status = 'failed' and old.status is distinct from 'failed')
        execute function webhook_anchor_record_failed()`);

    await knex.raw(`
      create function webhook_certificate_revoked() returns trigger language plpgsql as $$
      begin
        perform webhook_publish(new.user_id, 'certificate.revoked',
          jsonb_build_object('certID', new.cert_id, 'revokedAt', new.revoked_at,
            'networkId', new.network_id));
        return null;
      end
      $$`);
    await knex.raw(`
      create trigger certificates_webhooks after update of revoked_at on certificates
        for each row when (old.revoked_at is null and new.revoked_at is not null)
        execute function webhook_certificate_revoked()`);
  },

  async down(knex) {
    await knex.raw('drop trigger certificates_webhooks on certificates');
    await knex.raw('drop trigger anchor_records_webhooks on anchor_records');
    await knex.raw('drop trigger evidences_webhooks on evidences');
    await knex.raw('drop trigger trustpoints_webhooks on trustpoints');
    await knex.raw('drop function webhook_certificate_revoked()');
    await knex.raw('drop function webhook_anchor_record_failed()');
    await knex.raw('drop function webhook_evidences_anchored()');
    await knex.raw('drop function webhook_trustpoints_anchored()');
    await knex.raw('drop function webhook_publish(text, text, jsonb)');
    await knex.schema.dropTable('webhook_attempts');
    await knex.schema.dropTable('webhook_deliveries');
    await knex.schema.dropTable('webhook_events');
    await knex.schema.dropTable('webhook_endpoints');
  },
};
