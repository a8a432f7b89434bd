-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "postDate" TEXT;

-- AlterTable
ALTER TABLE "Venue" ADD COLUMN     "postDate" TEXT;

-- AlterTable
ALTER TABLE "Organizer" ADD COLUMN     "postDate" TEXT;
